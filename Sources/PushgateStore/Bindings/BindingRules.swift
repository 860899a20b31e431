/// The binding operations as SQL on one connection, shared by the SQLite and PostgreSQL stores;
/// the caller provides the write transaction.
///
/// - Important: the rules are docs/relay.md, "Bindings": 16 hosts per token, protected
///   bindings, new hosts per token per day, tokens per host, `maxTokens`.
enum BindingRules {
    static func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64, mayAddToken: Bool,
                         policy: BindingPolicy, on connection: some StoreConnection) throws -> RegisterOutcome {
        let key = key(token, kind, serverId)
        if try connection.run(BindingSQL.refresh, key + [.integer(nowMs)]) == 1 { return .refreshed }
        let bound = try bindingCount(token: token, kind: kind, on: connection)
        // Only hosts joining a token others hold count against the day's admissions: the first
        // host takes nobody's place, and a brand-new token costs no admission row.
        if bound > 0 {
            let since = nowMs - BindingPolicy.admissionWindowMs
            let admitted = try connection.integer(BindingSQL.recentAdmissions, self.key(token, kind) + [.integer(since)]) ?? 0
            guard admitted < Int64(policy.newBindingsPerDay) else { return .bindingLimit }
        } else if !mayAddToken {
            return .newTokenRefused
        }
        var oldest: (registeredAt: Int64, serverId: String)?
        if bound >= BindingLimits.hostsPerToken {
            oldest = try oldestBinding(token: token, kind: kind, on: connection)
            guard let oldest, oldest.registeredAt <= nowMs - policy.protectMs else { return .bindingLimit }
        }
        // Check and count in one statement; the refusals after it take the count back.
        guard try connection.run(BindingSQL.countHostToken, [.text(serverId), .integer(Int64(policy.maxTokensPerHost))]) == 1 else {
            return .hostTokenLimit
        }
        if bound == 0, try connection.run(BindingSQL.countNewToken, [.integer(Int64(policy.maxTokens))]) == 0 {
            try uncountHost(serverId, on: connection)
            return .tokenLimit
        }
        if let oldest { try deleteRow(token: token, kind: kind, serverId: oldest.serverId, on: connection) }
        try connection.run(BindingSQL.insert, key + [.integer(nowMs)])
        if bound > 0 { try connection.run(BindingSQL.admit, key + [.integer(nowMs)]) }
        return bound == 0 ? .created : .added(evicted: oldest == nil ? 0 : 1)
    }

    static func unregister(token: String, kind: BindingKind, serverId: String,
                           on connection: some StoreConnection) throws -> UnregisterOutcome {
        if try removeBinding(token: token, kind: kind, serverId: serverId, on: connection) { return .removed }
        return try bindingCount(token: token, kind: kind, on: connection) > 0 ? .boundToOthers : .notFound
    }

    static func removeBinding(token: String, kind: BindingKind, serverId: String,
                              on connection: some StoreConnection) throws -> Bool {
        guard try deleteRow(token: token, kind: kind, serverId: serverId, on: connection) else { return false }
        if try bindingCount(token: token, kind: kind, on: connection) == 0 {
            try adjustTokenCount(by: -1, on: connection)
        }
        return true
    }

    static func deleteToken(_ token: String, kind: BindingKind, on connection: some StoreConnection) throws -> Int {
        let servers = try connection.texts(BindingSQL.serversOfToken, key(token, kind))
        let deleted = try connection.run(BindingSQL.deleteToken, key(token, kind))
        for server in servers { try uncountHost(server, on: connection) }
        if deleted > 0 { try adjustTokenCount(by: -1, on: connection) }
        return deleted
    }

    /// The kind each of `tokens` is bound to `serverId` with (one or two `kinds`); a token bound
    /// with both maps to the first.
    static func boundTokens(_ tokens: [String], kinds: [BindingKind], serverId: String, refreshedSince: Int64,
                            on connection: some StoreConnection) throws -> [String: BindingKind] {
        precondition((1...2).contains(kinds.count), "one or two kinds")
        let distinct = Array(Set(tokens))
        let chunkSize = BindingSQL.lookupSlots.last ?? 1
        let kindParameters = [SQLValue.text(kinds[0].rawValue), .text(kinds[kinds.count - 1].rawValue)]
        var bound: [String: BindingKind] = [:]
        for start in stride(from: 0, to: distinct.count, by: chunkSize) {
            let chunk = distinct[start ..< min(start + chunkSize, distinct.count)]
            let slots = BindingSQL.lookupSlots.first { $0 >= chunk.count } ?? chunkSize
            // Unused slots are NULL, which matches no token.
            let padding = [SQLValue](repeating: .null, count: slots - chunk.count)
            let parameters = kindParameters + [.text(serverId), .integer(refreshedSince)] + chunk.map { SQLValue.text($0) } + padding
            for line in try connection.texts(BindingSQL.lookup(slots: slots), parameters) {
                guard let space = line.firstIndex(of: " "), let kind = BindingKind(rawValue: String(line[..<space])) else { continue }
                let token = String(line[line.index(after: space)...])
                if bound[token] == kinds[0] { continue }
                bound[token] = kind
            }
        }
        return bound
    }

    static func tokenCount(on connection: some StoreConnection) throws -> Int {
        Int(try connection.integer(BindingSQL.readTokenCount, []) ?? 0)
    }

    /// Every binding of `token`, every kind.
    static func bindings(of token: String, on connection: some StoreConnection) throws -> [BindingRecord] {
        try connection.texts(BindingSQL.listToken, [.text(token)]).compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3, let kind = BindingKind(rawValue: String(fields[0])), let at = Int64(fields[2]) else { return nil }
            return BindingRecord(token: token, kind: kind, serverId: String(fields[1]), registeredAt: at)
        }
    }

    /// One step of the sweep: looks at up to `limit` bindings after `cursor` and removes those
    /// refreshed before `refreshedSince`; returns where the next step starts (`nil`: the end of
    /// the table, start over) and how many it removed. Also drops admissions older than a day.
    static func sweep(after cursor: BindingRecord.Key?, limit: Int, refreshedSince: Int64, nowMs: Int64,
                      on connection: some StoreConnection) throws -> (next: BindingRecord.Key?, removed: Int) {
        try connection.run(BindingSQL.purgeAdmissions, [.integer(nowMs - BindingPolicy.admissionWindowMs)])
        let start = cursor ?? BindingRecord.Key(token: "", kind: "", serverId: "")
        let rows = try connection.texts(BindingSQL.sweep, [.text(start.token), .text(start.kind), .text(start.serverId),
                                                           .integer(Int64(limit))])
        var removed = 0
        var last: BindingRecord.Key?
        for line in rows {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, let at = Int64(fields[3]) else { continue }
            last = BindingRecord.Key(token: fields[0], kind: fields[1], serverId: fields[2])
            guard at < refreshedSince, let kind = BindingKind(rawValue: fields[1]) else { continue }
            if try removeBinding(token: fields[0], kind: kind, serverId: fields[2], on: connection) { removed += 1 }
        }
        return (rows.count < limit ? nil : last, removed)
    }

    /// Deletes every binding of `token`, every kind, and its day of admissions (the operator's
    /// reset); returns how many bindings.
    static func clear(_ token: String, on connection: some StoreConnection) throws -> Int {
        try connection.run(BindingSQL.forgetAdmissions, [.text(token)])
        return try BindingKind.allCases.reduce(0) { total, kind in total + (try deleteToken(token, kind: kind, on: connection)) }
    }

    private static func oldestBinding(token: String, kind: BindingKind,
                                      on connection: some StoreConnection) throws -> (registeredAt: Int64, serverId: String)? {
        guard let line = try connection.texts(BindingSQL.oldest, key(token, kind)).first,
              let space = line.firstIndex(of: " "), let at = Int64(line[..<space]) else { return nil }
        return (at, String(line[line.index(after: space)...]))
    }

    /// Deletes one binding row and uncounts it from its host; the token count is the caller's.
    @discardableResult
    private static func deleteRow(token: String, kind: BindingKind, serverId: String,
                                  on connection: some StoreConnection) throws -> Bool {
        guard try connection.run(BindingSQL.deleteBinding, key(token, kind, serverId)) == 1 else { return false }
        try uncountHost(serverId, on: connection)
        return true
    }

    private static func uncountHost(_ serverId: String, on connection: some StoreConnection) throws {
        try connection.run(BindingSQL.uncountHostToken, [.text(serverId)])
        try connection.run(BindingSQL.dropIdleHost, [.text(serverId)])
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
