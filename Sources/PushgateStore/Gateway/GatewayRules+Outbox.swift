/// The outbox rules (docs/gateway.md "Coalescing and delivery"): a row per queued notification,
/// written with its send-log row, claimed for its window before each send, deleted once its
/// window is dealt with, postponed by a retry, and taken over by the next relay when the process
/// that held it has ended. Claim, delete and postpone touch only rows the caller still holds.
extension GatewayRules {
    /// Queues one admitted notification, inside the transaction that charged it.
    static func queue(_ queued: GatewayQueuedNotification, registrationId: String, hostFingerprint: String, holder: Int64,
                      dueAt: Int64, on connection: some GatewayConnection) throws {
        let note = queued.notification
        try connection.run(GatewayOutboxSQL.insert, [
            .text(queued.sendId), .text(registrationId), .text(hostFingerprint), .integer(holder), .integer(queued.acceptedAt),
            .integer(dueAt), note.notificationId.map(SQLValue.text) ?? .null, .integer(note.notificationSeq),
            .text(note.notificationEpoch), .text(note.source), note.agentState.map(SQLValue.text) ?? .null, .text(note.title),
            .text(note.body), note.worktreeId.map(SQLValue.text) ?? .null,
        ])
    }

    /// Whether any rows belong to a holder other than `holder`: a read that spares most calls
    /// to ``adoptOutbox(holder:on:)`` their write transaction.
    static func outboxHasOtherHolders(_ holder: Int64, on connection: some GatewayConnection) throws -> Bool {
        try !connection.texts(GatewayOutboxSQL.otherHolders, [.integer(holder)]).isEmpty
    }

    /// Moves the rows of every holder that has ended to `holder`; returns them, oldest first.
    static func adoptOutbox(holder: Int64, on connection: some GatewayConnection) throws -> [GatewayOutboxRow] {
        var adopted: [(row: GatewayOutboxRow, rowid: Int64)] = []
        for text in try connection.texts(GatewayOutboxSQL.otherHolders, [.integer(holder)]) {
            guard let other = Int64(text), try connection.holderHasEnded(other) else { continue }
            // RETURNING: only the rows this transaction moved, even when another relay raced for them.
            for row in try connection.rows(GatewayOutboxSQL.adopt, [.integer(holder), .integer(other)], columns: 16) {
                let note = GatewayNotification(notificationId: row[6], notificationSeq: integer(row[7]), notificationEpoch: row[8] ?? "",
                                               source: row[9] ?? "", agentState: row[10], title: row[11] ?? "", body: row[12] ?? "",
                                               worktreeId: row[13])
                let queued = GatewayQueuedNotification(sendId: row[0] ?? "", acceptedAt: integer(row[3]), notification: note)
                adopted.append((GatewayOutboxRow(registrationId: row[1] ?? "", hostFingerprint: row[2] ?? "", queued: queued,
                                                 attempts: Int(integer(row[5])), dueAt: integer(row[4]), windowId: row[14]),
                                 integer(row[15])))
            }
        }
        return adopted.sorted { ($0.row.queued.acceptedAt, $0.rowid) < ($1.row.queued.acceptedAt, $1.rowid) }.map(\.row)
    }

    /// Marks the rows `holder` still holds as window `windowId`; returns their send ids.
    static func claimOutbox(sendIds: [String], windowId: String, holder: Int64,
                            on connection: some GatewayConnection) throws -> [String] {
        try sendIds.flatMap { try connection.texts(GatewayOutboxSQL.claim, [.text($0), .text(windowId), .integer(holder)]) }
    }

    static func deleteOutbox(sendIds: [String], holder: Int64, on connection: some GatewayConnection) throws {
        for id in sendIds { try connection.run(GatewayOutboxSQL.delete, [.text(id), .integer(holder)]) }
    }

    static func postponeOutbox(sendIds: [String], attempts: Int, dueAt: Int64, holder: Int64,
                               on connection: some GatewayConnection) throws {
        for id in sendIds {
            try connection.run(GatewayOutboxSQL.postpone, [.text(id), .integer(Int64(attempts)), .integer(dueAt), .integer(holder)])
        }
    }
}

/// Which relay process holds an outbox row's window in memory: a random key per opened gateway
/// store, written into every row it queues.
///
/// On PostgreSQL each of the store's sessions takes `pg_advisory_lock_shared(key)` when it
/// connects (and again on every reconnect) and keeps it for its life, so the key can be locked
/// exclusively exactly when every session of that process has ended; a relay takes over the
/// rows of such a holder. That can happen to a running relay whose sessions were all dropped,
/// so claims, deletes and postpones name the holder and never touch rows taken over from it.
/// A SQLite file serves one relay process at a time, so there any other holder is an earlier run.
enum GatewayOutboxHolder {
    /// Above the int4 range that the per-host locks' `hashtext` keys fall in, so the two never meet.
    static func random() -> Int64 { Int64.random(in: (1 << 32) ... Int64.max) }

    /// The session statement that marks `holder` as alive on PostgreSQL.
    static func sessionLock(_ holder: Int64) -> String { "SELECT pg_advisory_lock_shared(\(holder))" }
}
