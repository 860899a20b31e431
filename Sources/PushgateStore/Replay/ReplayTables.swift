/// The replay-set operations as SQL on one PostgreSQL connection; the caller provides the
/// write transaction, which holds the replay lock.
enum ReplayTables {
    /// Records `key` (a digest) unless a live row has it; at `maxEntries` rows, purges expired
    /// rows and tries once more.
    static func record(_ key: String, nowMs: Int64, ttlMs: Int64, maxEntries: Int,
                       on connection: PostgreSQLConnection) throws -> ReplayOutcome {
        let expiresAt = nowMs + ttlMs
        if let previous = try connection.integer(ReplaySQL.expiry, [.text(key)]) {
            guard previous <= nowMs else { return .replay }
            // An expired row of the same key is renewed in place: the row count stays.
            try connection.run(ReplaySQL.renew, [.text(key), .integer(expiresAt)])
            return .fresh
        }
        let insert = [SQLValue.text(key), .integer(expiresAt), .integer(Int64(maxEntries))]
        if try connection.run(ReplaySQL.insertWithinLimit, insert) == 1 { return .fresh }
        // Expired rows count until they are purged.
        try purge(nowMs: nowMs, on: connection)
        return try connection.run(ReplaySQL.insertWithinLimit, insert) == 1 ? .fresh : .full
    }

    static func forget(_ key: String, on connection: PostgreSQLConnection) throws {
        try connection.run(ReplaySQL.forget, [.text(key)])
    }

    static func purge(nowMs: Int64, on connection: PostgreSQLConnection) throws {
        try connection.run(ReplaySQL.purge, [.integer(nowMs)])
    }

    static func count(on connection: PostgreSQLConnection) throws -> Int {
        Int(try connection.integer(ReplaySQL.count, []) ?? 0)
    }
}

/// The statements behind ``ReplayTables``. Each reaches `replay_keys` through its primary key or
/// its expiry index; `replay_count` is one row kept in step in the same statement.
enum ReplaySQL {
    static let expiry = "SELECT expires_at FROM replay_keys WHERE key = $1"
    static let renew = "UPDATE replay_keys SET expires_at = $2 WHERE key = $1"
    /// Inserts key `$1` expiring at `$2` only while fewer than `$3` rows exist, counting it in
    /// the same statement; changes no row when the set is full.
    static let insertWithinLimit = """
        WITH slot AS (UPDATE replay_count SET keys = keys + 1 WHERE id = 1 AND keys < $3 RETURNING 1)
        INSERT INTO replay_keys (key, expires_at) SELECT $1::text, $2::bigint FROM slot
        """
    /// `$1` is now.
    static let purge = """
        WITH gone AS (DELETE FROM replay_keys WHERE expires_at <= $1 RETURNING 1)
        UPDATE replay_count SET keys = keys - (SELECT count(*) FROM gone) WHERE id = 1
        """
    static let forget = """
        WITH gone AS (DELETE FROM replay_keys WHERE key = $1 RETURNING 1)
        UPDATE replay_count SET keys = keys - (SELECT count(*) FROM gone) WHERE id = 1
        """
    static let count = "SELECT keys FROM replay_count WHERE id = 1"
}
