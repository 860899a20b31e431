extension PostgreSQLConnection: GatewayConnection {
    func rows(_ sql: String, _ parameters: [SQLValue], columns: Int) throws -> [[String?]] {
        let result = try retryingIfDropped { try query(sql, parameters) }
        return (0 ..< result.rowCount).map { row in (0 ..< columns).map { result.string(row: row, column: $0) } }
    }

    /// `pg_advisory_xact_lock(hashtext('<scope>:<hostFingerprint>'))`, released at commit or
    /// rollback; transactions of other hosts do not wait for it.
    func lock(_ lock: GatewayHostLock, host hostFingerprint: String) throws {
        guard isInTransaction else { throw GatewayLockError(scope: lock.rawValue) }
        try run("SELECT pg_advisory_xact_lock(hashtext(?1))", [.text(lock.name(host: hostFingerprint))])
    }

    /// Whether no session holds `holder`'s shared lock any more: the exclusive lock is granted
    /// only then (and held until commit, so the holder cannot come back meanwhile).
    func holderHasEnded(_ holder: Int64) throws -> Bool {
        try texts("SELECT pg_try_advisory_xact_lock(?1)::text", [.integer(holder)]) == ["true"]
    }
}
