extension SQLiteConnection: GatewayConnection {
    func rows(_ sql: String, _ parameters: [SQLValue], columns: Int) throws -> [[String?]] {
        try withStatement(sql) { statement in
            try statement.bind(parameters)
            var rows: [[String?]] = []
            while try statement.step() { rows.append((0 ..< Int32(columns)).map { statement.string(at: $0) }) }
            return rows
        }
    }

    /// Takes nothing more: a write transaction is `BEGIN IMMEDIATE`, which already holds the
    /// database's single write lock, so no other transaction of any host runs beside it.
    func lock(_ lock: GatewayHostLock, host hostFingerprint: String) throws {
        guard isInTransaction else { throw GatewayLockError(scope: lock.rawValue) }
    }

    /// Always: a SQLite file serves one relay process at a time, so another holder is an earlier run.
    func holderHasEnded(_ holder: Int64) throws -> Bool { true }
}
