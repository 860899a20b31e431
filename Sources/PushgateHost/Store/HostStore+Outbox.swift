import PushgateStore

/// The outbox table (`outbox`): written only when a push was not accepted, so an event whose
/// pushes all were runs no statement here.
///
/// - Important: docs/host.md "Outbox" — one transaction per event on the store's
///   `synchronous=NORMAL` connection: an entry survives `kill -9`, not a power loss. Over the
///   bound the oldest alert entries go first.
extension HostStore {
    /// What became of the entries of one round.
    public struct OutboxSettlement: Sendable {
        /// Entries that are over: accepted, dead, refused or past their deadline.
        public var finished: [Int64] = []
        /// Entries to try again: id, tries made, when the next is due.
        public var rescheduled: [(id: Int64, attempts: Int, nextAttemptAtMs: Int64)] = []

        public init() {}
    }

    /// Writes `entries` in one transaction, then, while the table holds more than `maxEntries`,
    /// deletes the oldest entries (alerts first); returns how many were written and how many
    /// were deleted that way.
    @discardableResult
    public func enqueueOutbox(_ entries: [OutboxEntry], maxEntries: Int) throws -> (queued: Int, evicted: Int) {
        guard !entries.isEmpty else { return (0, 0) }
        let depth = try outboxDepth()
        let (queued, evicted) = try connection.transaction(.immediate) { () throws -> (Int, Int) in
            var inserted = 0
            for entry in entries {
                // An alert for a prompt answered meanwhile (a `resolved` that came while it was
                // being sent) is not queued; its replacement is (docs/host.md, "Dismissal").
                try connection.withStatement("""
                    INSERT INTO outbox (kind, token, event_id, message, created_at, attempts, next_at) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
                    WHERE NOT (?1 = 'alert' AND json_extract(?4, '$.kind') IS NOT 'resolved' AND EXISTS (
                        SELECT 1 FROM pushed_prompts WHERE tag = json_extract(?4, '$.tag') AND resolved_at IS NOT NULL))
                    """) { statement in
                    try statement.bind(entry.kind.rawValue, at: 1)
                    try statement.bind(entry.token, at: 2)
                    try statement.bind(entry.eventId, at: 3)
                    try statement.bind(entry.message, at: 4)
                    try statement.bind(entry.createdAtMs, at: 5)
                    try statement.bind(Int64(entry.attempts), at: 6)
                    try statement.bind(entry.nextAttemptAtMs, at: 7)
                    try statement.step()
                }
                inserted += connection.changes
            }
            var excess = depth + inserted - maxEntries
            var evicted = 0
            for sql in ["DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE kind = 'alert' ORDER BY id LIMIT ?)",
                        "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox ORDER BY id LIMIT ?)"] where excess > 0 {
                try connection.withStatement(sql) { statement in
                    try statement.bind(Int64(excess), at: 1)
                    try statement.step()
                }
                evicted += connection.changes
                excess -= connection.changes
            }
            return (inserted, evicted)
        }
        // Counted once the commit went through: a commit that failed (a full disk) wrote nothing.
        outboxRows = depth + queued - evicted
        return (queued, evicted)
    }

    /// Up to `limit` entries due at `nowMs`, those due first first.
    public func dueOutbox(nowMs: Int64, limit: Int) throws -> [OutboxEntry] {
        guard try outboxDepth() > 0 else { return [] }
        return try connection.withStatement("""
            SELECT id, kind, token, event_id, message, created_at, attempts, next_at FROM outbox
            WHERE next_at <= ? AND kind IN \(Self.knownKinds) ORDER BY next_at, id LIMIT ?
            """) { statement in
            try statement.bind(nowMs, at: 1)
            try statement.bind(Int64(limit), at: 2)
            var entries: [OutboxEntry] = []
            while try statement.step() {
                guard let kind = OutboxEntry.Kind(rawValue: statement.string(at: 1) ?? "") else { continue }
                entries.append(OutboxEntry(id: statement.int64(at: 0), kind: kind, token: statement.string(at: 2) ?? "",
                                           eventId: statement.string(at: 3) ?? "", message: statement.string(at: 4) ?? "",
                                           createdAtMs: statement.int64(at: 5), attempts: Int(statement.int64(at: 6)),
                                           nextAttemptAtMs: statement.int64(at: 7)))
            }
            return entries
        }
    }

    /// Deletes the finished entries and reschedules the others, in one transaction.
    public func settleOutbox(_ settlement: OutboxSettlement) throws {
        guard !settlement.finished.isEmpty || !settlement.rescheduled.isEmpty else { return }
        let depth = try outboxDepth()
        let deleted = try connection.transaction(.immediate) {
            var deleted = 0
            for id in settlement.finished {
                try connection.withStatement("DELETE FROM outbox WHERE id = ?") { statement in
                    try statement.bind(id, at: 1)
                    try statement.step()
                }
                // An entry evicted meanwhile is gone already.
                deleted += connection.changes
            }
            for entry in settlement.rescheduled {
                try connection.withStatement("UPDATE outbox SET attempts = ?, next_at = ? WHERE id = ?") { statement in
                    try statement.bind(Int64(entry.attempts), at: 1)
                    try statement.bind(entry.nextAttemptAtMs, at: 2)
                    try statement.bind(entry.id, at: 3)
                    try statement.step()
                }
            }
            return deleted
        }
        outboxRows = depth - deleted
    }

    /// The entries waiting, the oldest one's first try and the earliest next try (nil when empty).
    public func outboxSummary() throws -> (depth: Int, oldestCreatedAtMs: Int64?, nextAttemptAtMs: Int64?) {
        let depth = try outboxDepth()
        guard depth > 0 else { return (0, nil, nil) }
        return try connection.withStatement("""
            SELECT (SELECT created_at FROM outbox ORDER BY id LIMIT 1), min(next_at) FROM outbox WHERE kind IN \(Self.knownKinds)
            """) { statement in
            guard try statement.step() else { return (depth, nil, nil) }
            return (depth, statement.isNull(at: 0) ? nil : statement.int64(at: 0), statement.isNull(at: 1) ? nil : statement.int64(at: 1))
        }
    }

    /// The kinds this version sends, as an SQL list: a row of a kind written by a later version
    /// waits for that version (it counts in the depth, and is never due here).
    private static let knownKinds = "(" + OutboxEntry.Kind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// Rows in `outbox`, counted once and then kept by this store's writes (only it writes the table).
    func outboxDepth() throws -> Int {
        if let outboxRows { return outboxRows }
        let rows = try connection.withStatement("SELECT count(*) FROM outbox") { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
        outboxRows = rows
        return rows
    }
}
