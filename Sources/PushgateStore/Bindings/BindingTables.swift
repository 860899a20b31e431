/// The binding operations as SQL on one connection; the caller provides the transaction.
enum BindingTables {
    static func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64,
                         maxTokens: Int, on connection: SQLiteConnection) throws -> RegisterOutcome {
        let refreshed = try connection.withStatement(BindingSQL.refresh) { statement in
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
            try connection.withStatement(BindingSQL.evictOldest) { statement in
                try statement.bindKey(token: token, kind: kind)
                try statement.bind(Int64(evicted), at: 3)
                try statement.step()
            }
        }
        try connection.withStatement(BindingSQL.insert) { statement in
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
        let removed = try connection.withStatement(BindingSQL.deleteBinding) { statement in
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
        let deleted = try connection.withStatement(BindingSQL.deleteToken) { statement in
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
        let chunkSize = BindingSQL.lookupSlots.last ?? 1
        var bound = Set<String>()
        for start in stride(from: 0, to: distinct.count, by: chunkSize) {
            let chunk = distinct[start ..< min(start + chunkSize, distinct.count)]
            let slots = BindingSQL.lookupSlots.first { $0 >= chunk.count } ?? chunkSize
            try connection.withStatement(BindingSQL.lookup(slots: slots)) { statement in
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
        try connection.withStatement(BindingSQL.readTokenCount) { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    private static func bindingCount(token: String, kind: BindingKind, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement(BindingSQL.countBindings) { statement in
            try statement.bindKey(token: token, kind: kind)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    private static func adjustTokenCount(by delta: Int64, on connection: SQLiteConnection) throws {
        try connection.withStatement(BindingSQL.adjustTokenCount) { statement in
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
