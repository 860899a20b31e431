/// The binding operations as SQL on one connection, shared by the SQLite and PostgreSQL stores;
/// the caller provides the write transaction.
enum BindingTables {
    static func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64,
                         maxTokens: Int, on connection: some StoreConnection) throws -> RegisterOutcome {
        let key = key(token, kind, serverId)
        if try connection.run(BindingSQL.refresh, key + [.integer(nowMs)]) == 1 { return .refreshed }
        let bound = try bindingCount(token: token, kind: kind, on: connection)
        if bound == 0, try connection.run(BindingSQL.countNewToken, [.integer(Int64(maxTokens))]) == 0 {
            return .tokenLimit
        }
        let evicted = max(0, bound - BindingLimits.hostsPerToken + 1)
        if evicted > 0 {
            try connection.run(BindingSQL.evictOldest, self.key(token, kind) + [.integer(Int64(evicted))])
        }
        try connection.run(BindingSQL.insert, key + [.integer(nowMs)])
        return .added(evicted: evicted)
    }

    static func unregister(token: String, kind: BindingKind, serverId: String,
                           on connection: some StoreConnection) throws -> UnregisterOutcome {
        if try removeBinding(token: token, kind: kind, serverId: serverId, on: connection) { return .removed }
        return try bindingCount(token: token, kind: kind, on: connection) > 0 ? .boundToOthers : .notFound
    }

    static func removeBinding(token: String, kind: BindingKind, serverId: String,
                              on connection: some StoreConnection) throws -> Bool {
        let removed = try connection.run(BindingSQL.deleteBinding, key(token, kind, serverId)) == 1
        if removed, try bindingCount(token: token, kind: kind, on: connection) == 0 {
            try adjustTokenCount(by: -1, on: connection)
        }
        return removed
    }

    static func deleteToken(_ token: String, kind: BindingKind, on connection: some StoreConnection) throws -> Int {
        let deleted = try connection.run(BindingSQL.deleteToken, key(token, kind))
        if deleted > 0 { try adjustTokenCount(by: -1, on: connection) }
        return deleted
    }

    static func boundTokens(_ tokens: [String], kind: BindingKind, serverId: String,
                            on connection: some StoreConnection) throws -> Set<String> {
        let distinct = Array(Set(tokens))
        let chunkSize = BindingSQL.lookupSlots.last ?? 1
        var bound = Set<String>()
        for start in stride(from: 0, to: distinct.count, by: chunkSize) {
            let chunk = distinct[start ..< min(start + chunkSize, distinct.count)]
            let slots = BindingSQL.lookupSlots.first { $0 >= chunk.count } ?? chunkSize
            // Unused slots are NULL, which matches no token.
            let padding = [SQLValue](repeating: .null, count: slots - chunk.count)
            let parameters = [.text(kind.rawValue), .text(serverId)] + chunk.map { SQLValue.text($0) } + padding
            bound.formUnion(try connection.texts(BindingSQL.lookup(slots: slots), parameters))
        }
        return bound
    }

    static func tokenCount(on connection: some StoreConnection) throws -> Int {
        Int(try connection.integer(BindingSQL.readTokenCount, []) ?? 0)
    }

    private static func bindingCount(token: String, kind: BindingKind, on connection: some StoreConnection) throws -> Int {
        Int(try connection.integer(BindingSQL.countBindings, key(token, kind)) ?? 0)
    }

    private static func adjustTokenCount(by delta: Int64, on connection: some StoreConnection) throws {
        try connection.run(BindingSQL.adjustTokenCount, [.integer(delta)])
    }

    /// Parameters `?1` token, `?2` kind and, when given, `?3` serverId.
    private static func key(_ token: String, _ kind: BindingKind, _ serverId: String? = nil) -> [SQLValue] {
        [.text(token), .text(kind.rawValue)] + (serverId.map { [.text($0)] } ?? [])
    }
}
