import PushgateStore

/// The relay registration cache (`relay_registrations`), kept in memory too: read once on
/// first use (on the database queue), then changed only together with the table; lookups
/// answer from memory on the caller's thread.
///
/// - Important: docs/host.md "Lost and aging bindings" — registrations are cached by (relay URL, token, kind), with the
///   time of the last successful registration (the host refreshes old ones).
extension HostStore {
    /// Whether `token` of `kind` is known to be registered on the relay at `relayURL`.
    public nonisolated(nonsending) func isRegistered(relayURL: String, token: String, kind: String) async throws -> Bool {
        try await cachedRegistrations()[Registration(relayURL: relayURL, token: token, kind: kind)] != nil
    }

    /// Those of `tokens` known to be registered as `kind` on the relay at `relayURL`, each with
    /// when it was last registered (wall-clock milliseconds): one call for a whole event's tokens.
    public nonisolated(nonsending) func registrationTimes(relayURL: String, tokens: [String], kind: String) async throws
        -> [String: Int64] {
        let cached = try await cachedRegistrations()
        var times: [String: Int64] = [:]
        for token in tokens {
            if let registeredAt = cached[Registration(relayURL: relayURL, token: token, kind: kind)] { times[token] = registeredAt }
        }
        return times
    }

    /// Records a successful registration, now.
    public func markRegistered(relayURL: String, token: String, kind: String) throws {
        let now = clock.nowMilliseconds
        try connection.withStatement("INSERT OR REPLACE INTO relay_registrations (relay_url, token, kind, registered_at) VALUES (?, ?, ?, ?)") { statement in
            try statement.bind(relayURL, at: 1)
            try statement.bind(token, at: 2)
            try statement.bind(kind, at: 3)
            try statement.bind(now, at: 4)
            try statement.step()
        }
        memory.withLock { $0.registrations?[Registration(relayURL: relayURL, token: token, kind: kind)] = now }
    }

    /// Forgets every cached registration of `token` of `kind` (the relay no longer binds it).
    public func forgetRegistration(token: String, kind: String) throws {
        try connection.withStatement("DELETE FROM relay_registrations WHERE token = ? AND kind = ?") { statement in
            try statement.bind(token, at: 1)
            try statement.bind(kind, at: 2)
            try statement.step()
        }
        memory.withLock { memory in
            memory.registrations = memory.registrations?.filter { !($0.key.token == token && $0.key.kind == kind) }
        }
    }

    /// Drops every cached registration for another relay URL (all of them when `relayURL` is nil).
    public func clearRegistrations(except relayURL: String?) throws {
        if let relayURL { try run("DELETE FROM relay_registrations WHERE relay_url <> ?", relayURL) } else {
            try connection.execute("DELETE FROM relay_registrations")
        }
        memory.withLock { memory in memory.registrations = memory.registrations?.filter { $0.key.relayURL == relayURL } }
    }

    private nonisolated(nonsending) func cachedRegistrations() async throws -> [Registration: Int64] {
        if let cached = memory.withLock({ $0.registrations }) { return cached }
        return try await loadRegistrations()
    }

    private func loadRegistrations() throws -> [Registration: Int64] {
        if let cached = memory.withLock({ $0.registrations }) { return cached }
        let loaded = try connection.withStatement("SELECT relay_url, token, kind, registered_at FROM relay_registrations") { statement in
            var rows: [Registration: Int64] = [:]
            while try statement.step() {
                rows[Registration(relayURL: statement.string(at: 0) ?? "", token: statement.string(at: 1) ?? "",
                                  kind: statement.string(at: 2) ?? "")] = statement.int64(at: 3)
            }
            return rows
        }
        memory.withLock { $0.registrations = loaded }
        return loaded
    }
}
