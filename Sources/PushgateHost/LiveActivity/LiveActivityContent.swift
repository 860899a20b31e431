import PushgateCore

/// What one token's activity should show after a change: the event, the rows, and the APNs
/// priority; turned into the relay's push for every token that shows the same.
///
/// - Important: protocol/host-api.md §6 — `end` when no row is working any more, else `update`;
///   `contentState.status` is the first working row's status, else the terminal status;
///   `dismissalDate` = floor(now s) + 900 (`complete`) or + 3600 (`error`) on `end` only,
///   `staleDate` = floor(updatedAt) + 1200 on `update` only, both integers; priority 10 for
///   `end` and for changes into `permission`, `input` or `error`, else 5 (Pushgate extension).
struct LiveActivityContent: Sendable, Equatable {
    static let completeDismissalSeconds: Int64 = 900
    static let errorDismissalSeconds: Int64 = 3_600
    static let staleSeconds: Int64 = 1_200
    /// `apns-priority` of an `end` or of a change the user must see now.
    static let urgentPriority = 10
    /// `apns-priority` of a routine update (not counted against APNs' hourly Live Activity budget).
    static let routinePriority = 5
    /// Row statuses whose arrival is urgent.
    static let urgentStatuses: Set<LiveActivityStatus> = [.permission, .input, .error]

    let event: LiveActivityEvent
    let rows: [LiveActivityItem]
    let priority: Int
    /// The session whose end caused the change, if one did: its row gives the terminal status.
    let endedSession: String?

    /// The change from `previous` to `next`; nil when nothing a row's signature covers changed
    /// (nothing is sent then) or when there is no row to show.
    init?(previous: [LiveActivityItem], next: [LiveActivityItem], endedSession: String? = nil) {
        guard !next.isEmpty, !LiveActivityRowRules.sameSignature(previous, next) else { return nil }
        rows = next
        self.endedSession = endedSession
        event = next.contains { LiveActivityRowRules.isWorking($0.status) } ? .update : .end
        let before = Dictionary(previous.map { ($0.sessionID, $0.status) }, uniquingKeysWith: { first, _ in first })
        let urgent = next.contains { Self.urgentStatuses.contains($0.status) && before[$0.sessionID] != $0.status }
        priority = event == .end || urgent ? Self.urgentPriority : Self.routinePriority
    }

    /// The row the activity leads with: the first working row, else the session that just
    /// ended, else the row that ended last.
    var primary: LiveActivityItem {
        // `init` refuses an empty row list, so `max` always finds a row.
        rows.first { LiveActivityRowRules.isWorking($0.status) }
            ?? rows.first { $0.sessionID == endedSession }
            ?? rows.enumerated().max { ($0.element.endedAt ?? 0, -$0.offset) < ($1.element.endedAt ?? 0, -$1.offset) }!.element
    }

    /// Tokens may share one request when this is equal: same event, priority and rows.
    var groupKey: String { "\(event.rawValue).\(priority).\(primary.sessionID).\(LiveActivitySnapshot.json(rows))" }

    /// The signed part of the relay request for `tokens` (1 to 100), stamped `nowMs`.
    func push(tokens: [String], eventVersion: Int64, nowMs: Int64) throws(WireFieldError) -> LiveActivityPush {
        let updatedAt = Double(nowMs) / 1_000
        let nowWholeSeconds = nowMs / 1_000
        let lead = primary
        let working = rows.filter { LiveActivityRowRules.isWorking($0.status) }.count
        let state = try LiveActivityContentState(
            status: lead.status, eventVersion: eventVersion, updatedAt: updatedAt,
            endedAt: event == .end ? lead.endedAt ?? updatedAt : nil, title: lead.title, workingCount: Int64(working), items: rows)
        // A change is an update or an end; starts are made by ``LiveActivityStarter``.
        if event == .end {
            let linger = lead.status == .error ? Self.errorDismissalSeconds : Self.completeDismissalSeconds
            return try LiveActivityPush(tokens: tokens, event: .end, contentState: state, dismissalDate: nowWholeSeconds + linger)
        }
        return try LiveActivityPush(tokens: tokens, event: .update, contentState: state,
                                    staleDate: Int64(updatedAt.rounded(.down)) + Self.staleSeconds)
    }
}
