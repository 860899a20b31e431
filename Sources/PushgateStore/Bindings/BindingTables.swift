/// The binding operations as SQL on one connection; the caller provides the transaction.
///
/// Every statement is a point lookup or a scan of one token's ≤ 17 rows, so the cost of a
/// write does not grow with the number of bindings.
enum BindingTables {
    /// Largest token list looked up by one statement; longer lists take several.
    static let lookupChunk = 128

    static func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64,
                         maxTokens: Int, on connection: SQLiteConnection) throws -> RegisterOutcome {
        let refreshed = try connection.withStatement(
            "UPDATE bindings SET registered_at = ?4 WHERE token = ?1 AND kind = ?2 AND server_id = ?3"
        ) { statement in
            try statement.bindKey(token: token, kind: kind, serverId: serverId)
            try statement.bind(nowMs, at: 4)
            try statement.step()
            return connection.changes == 1
        }
        if refreshed { return .refreshed }
        let bound = try bindingCount(token: token, kind: kind, on: connection)
        if bound == 0 {
            guard try tokenCount(on: connection) < maxTokens else { return .tokenLimit }
            try adjustTokenCount(by: 1, on: connection)
        }
        let evicted = max(0, bound - BindingLimits.hostsPerToken + 1)
        if evicted > 0 {
            // Ties in registration time fall to the smaller serverId, so eviction is deterministic.
            try connection.withStatement("""
                DELETE FROM bindings WHERE token = ?1 AND kind = ?2 AND server_id IN (
                    SELECT server_id FROM bindings WHERE token = ?1 AND kind = ?2
                    ORDER BY registered_at, server_id LIMIT ?3)
                """) { statement in
                try statement.bindKey(token: token, kind: kind)
                try statement.bind(Int64(evicted), at: 3)
                try statement.step()
            }
        }
        try connection.withStatement(
            "INSERT INTO bindings (token, kind, server_id, registered_at) VALUES (?1, ?2, ?3, ?4)"
        ) { statement in
            try statement.bindKey(token: token, kind: kind, serverId: serverId)
            try statement.bind(nowMs, at: 4)
            try statement.step()
        }
        return .added(evicted: evicted)
    }

    static func unregister(token: String, kind: BindingKind, serverId: String,
                           on connection: SQLiteConnection) throws -> UnregisterOutcome {
        if try removeBinding(token: token, kind: kind, serverId: serverId, on: connection) { return .removed }
        return try bindingCount(token: token, kind: kind, on: connection) > 0 ? .boundToOthers : .notFound
    }

    static func removeBinding(token: String, kind: BindingKind, serverId: String,
                              on connection: SQLiteConnection) throws -> Bool {
        let removed = try connection.withStatement(
            "DELETE FROM bindings WHERE token = ?1 AND kind = ?2 AND server_id = ?3"
        ) { statement in
            try statement.bindKey(token: token, kind: kind, serverId: serverId)
            try statement.step()
            return connection.changes == 1
        }
        if removed, try bindingCount(token: token, kind: kind, on: connection) == 0 {
            try adjustTokenCount(by: -1, on: connection)
        }
        return removed
    }

    static func deleteToken(_ token: String, kind: BindingKind, on connection: SQLiteConnection) throws -> Int {
        let deleted = try connection.withStatement("DELETE FROM bindings WHERE token = ?1 AND kind = ?2") { statement in
            try statement.bindKey(token: token, kind: kind)
            try statement.step()
            return connection.changes
        }
        if deleted > 0 { try adjustTokenCount(by: -1, on: connection) }
        return deleted
    }

    static func boundTokens(_ tokens: [String], kind: BindingKind, serverId: String,
                            on connection: SQLiteConnection) throws -> Set<String> {
        let distinct = Array(Set(tokens))
        var bound = Set<String>()
        for start in stride(from: 0, to: distinct.count, by: lookupChunk) {
            let chunk = distinct[start ..< min(start + lookupChunk, distinct.count)]
            // A few fixed list sizes keep the statement cache small; unused slots stay NULL,
            // which matches no token.
            let slots = [8, 32, lookupChunk].first { $0 >= chunk.count } ?? lookupChunk
            let list = (3 ..< 3 + slots).map { "?\($0)" }.joined(separator: ", ")
            let sql = "SELECT token FROM bindings WHERE kind = ?1 AND server_id = ?2 AND token IN (\(list))"
            try connection.withStatement(sql) { statement in
                try statement.bind(kind.rawValue, at: 1)
                try statement.bind(serverId, at: 2)
                for (offset, token) in chunk.enumerated() { try statement.bind(token, at: Int32(3 + offset)) }
                while try statement.step() {
                    if let token = statement.string(at: 0) { bound.insert(token) }
                }
            }
        }
        return bound
    }

    static func tokenCount(on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement("SELECT tokens FROM token_count WHERE id = 1") { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    private static func bindingCount(token: String, kind: BindingKind, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement("SELECT count(*) FROM bindings WHERE token = ?1 AND kind = ?2") { statement in
            try statement.bindKey(token: token, kind: kind)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    private static func adjustTokenCount(by delta: Int64, on connection: SQLiteConnection) throws {
        try connection.withStatement("UPDATE token_count SET tokens = tokens + ?1 WHERE id = 1") { statement in
            try statement.bind(delta, at: 1)
            try statement.step()
        }
    }
}

private extension SQLiteStatement {
    /// Binds `?1` token, `?2` kind and, when given, `?3` serverId.
    func bindKey(token: String, kind: BindingKind, serverId: String? = nil) throws {
        try bind(token, at: 1)
        try bind(kind.rawValue, at: 2)
        if let serverId { try bind(serverId, at: 3) }
    }
}
