import PushgateCore

/// How a token's rows follow session states, session ends and attention events.
///
/// - Important: protocol/host-api.md §6 — a row with no known state is kept as is; `busy` keeps
///   `permission`/`input`/`tool`, otherwise `working` (`stale` → `working`); `retry` → `retry`;
///   `idle` → `complete` with `endedAt` (now if none); `error` → `error`; visible busy or retry
///   sessions not yet shown are added; at most 4 rows, working rows first, then settled rows by
///   `endedAt`, newest first. A row's signature is (sessionId, title, status, endedAt).
enum LiveActivityRowRules {
    /// Statuses a busy session keeps: the host has no source that says they are over.
    static func busyKeeps(_ status: LiveActivityStatus) -> Bool { status == .permission || status == .input || status == .tool }

    /// Whether a row still counts as working (anything but `complete` and `error`).
    static func isWorking(_ status: LiveActivityStatus) -> Bool { status != .complete && status != .error }

    /// The rows a refresh tick adds where missing: visible top-level sessions that are busy or
    /// retrying, oldest first, each starting now.
    static func candidates(_ states: [String: SessionState], nowSeconds: Double) -> [LiveActivityItem] {
        states.lazy.filter { $0.value.visible && $0.value.isTopLevel && $0.value.status.settledRowStatus == nil }
            .sorted { ($0.value.firstSeenMs, $0.key) < ($1.value.firstSeenMs, $1.key) }
            .compactMap { sessionId, state in
                try? LiveActivityItem(sessionID: sessionId, title: state.title ?? "",
                                      status: state.status == .retry ? .retry : .working, startedAt: nowSeconds)
            }
    }

    /// One refresh of `rows` against the tick's snapshot of session states.
    static func refreshed(_ rows: [LiveActivityItem], states: [String: SessionState], candidates: [LiveActivityItem],
                          nowSeconds: Double) -> [LiveActivityItem] {
        var next = rows
        // Assigning only changed rows keeps an unchanged list sharing its storage (no copy per token and tick).
        for index in rows.indices {
            if let state = states[rows[index].sessionID], let row = following(rows[index], state, nowSeconds: nowSeconds) {
                next[index] = row
            }
        }
        for candidate in candidates where !next.contains(where: { $0.sessionID == candidate.sessionID }) {
            next.append(candidate)
        }
        return capped(next)
    }

    /// `rows` with the row of `sessionId` settled as `status` (`complete` or `error`).
    static func ended(_ rows: [LiveActivityItem], sessionId: String, status: LiveActivityStatus, title: String?,
                      nowSeconds: Double) -> [LiveActivityItem] {
        rows.map { $0.sessionID == sessionId ? settled($0, as: status, title: title, nowSeconds: nowSeconds) : $0 }
    }

    /// `rows` with the row of `sessionId` showing `status` (`permission` or `input`) while it works.
    static func marked(_ rows: [LiveActivityItem], sessionId: String, status: LiveActivityStatus) -> [LiveActivityItem] {
        rows.map { $0.sessionID == sessionId && isWorking($0.status) ? $0.with(status: status, endedAt: nil) : $0 }
    }

    /// At most ``LiveActivitySnapshot/maxRows``: working rows in their order, then settled rows
    /// by `endedAt`, newest first. Fewer rows keep their order, so rows do not jump around.
    static func capped(_ rows: [LiveActivityItem]) -> [LiveActivityItem] {
        guard rows.count > LiveActivitySnapshot.maxRows else { return rows }
        let settled = rows.enumerated().filter { !isWorking($0.element.status) }
            .sorted { ($0.element.endedAt ?? 0, -$0.offset) > ($1.element.endedAt ?? 0, -$1.offset) }
            .map(\.element)
        return Array((rows.filter { isWorking($0.status) } + settled).prefix(LiveActivitySnapshot.maxRows))
    }

    /// Whether two row lists show the same thing: same sessions, titles, statuses and end times, in order.
    static func sameSignature(_ a: [LiveActivityItem], _ b: [LiveActivityItem]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy {
            $0.sessionID == $1.sessionID && $0.title == $1.title && $0.status == $1.status && $0.endedAt == $1.endedAt
        }
    }

    /// The row `state` asks for, or nil when it already shows that.
    private static func following(_ row: LiveActivityItem, _ state: SessionState, nowSeconds: Double) -> LiveActivityItem? {
        if let settledStatus = state.status.settledRowStatus {
            return row.changed(title: state.title, status: settledStatus, endedAt: settledEnd(row, nowSeconds: nowSeconds))
        }
        let status: LiveActivityStatus = state.status == .retry ? .retry : busyKeeps(row.status) ? row.status : .working
        // A session working again starts a new turn: its old end time no longer applies.
        return row.changed(title: state.title, status: status, endedAt: nil)
    }

    private static func settled(_ row: LiveActivityItem, as status: LiveActivityStatus, title: String?,
                                nowSeconds: Double) -> LiveActivityItem {
        row.with(title: title, status: status, endedAt: settledEnd(row, nowSeconds: nowSeconds))
    }

    /// A row that settles now ends now; one already settled keeps its end time.
    private static func settledEnd(_ row: LiveActivityItem, nowSeconds: Double) -> Double {
        isWorking(row.status) ? nowSeconds : row.endedAt ?? nowSeconds
    }
}

extension LiveActivityItem {
    /// This row with another status and end time, and a new title when one is given; the row
    /// itself when nothing differs.
    func with(title newTitle: String? = nil, status: LiveActivityStatus, endedAt: Double?) -> LiveActivityItem {
        changed(title: newTitle, status: status, endedAt: endedAt) ?? self
    }

    /// Like ``with(title:status:endedAt:)``, but nil when nothing differs.
    func changed(title newTitle: String?, status: LiveActivityStatus, endedAt: Double?) -> LiveActivityItem? {
        let title = newTitle.map { $0.prefix(utf16Count: Self.maxTitleLength) } ?? self.title
        if title == self.title && status == self.status && endedAt == self.endedAt { return nil }
        do {
            return try LiveActivityItem(sessionID: sessionID, title: title, status: status, startedAt: startedAt, endedAt: endedAt)
        } catch {
            // The session id and start time passed these checks when the row was made; the end time is finite.
            preconditionFailure("a Live Activity row stopped being valid: \(error)")
        }
    }
}
