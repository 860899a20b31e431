import PushgateStore

/// The relay registration cache (`relay_registrations`), kept in memory too: read once on
/// first use, then changed only together with the table.
///
/// - Important: host.md §5 — registrations are cached by (relay URL, token, kind).
extension HostStore {
    /// Whether `token` of `kind` is known to be registered on the relay at `relayURL`.
    public func isRegistered(relayURL: String, token: String, kind: String) throws -> Bool {
        try cachedRegistrations().contains(Registration(relayURL: relayURL, token: token, kind: kind))
    }

    /// Those of `tokens` known to be registered as `kind` on the relay at `relayURL`: one call
    /// for a whole event's tokens.
    public func registeredTokens(relayURL: String, tokens: [String], kind: String) throws -> Set<String> {
        let cached = try cachedRegistrations()
        return Set(tokens.filter { cached.contains(Registration(relayURL: relayURL, token: $0, kind: kind)) })
    }

    /// Records a successful registration.
    public func markRegistered(relayURL: String, token: String, kind: String) throws {
        try connection.withStatement("INSERT OR REPLACE INTO relay_registrations (relay_url, token, kind, registered_at) VALUES (?, ?, ?, ?)") { statement in
            try statement.bind(relayURL, at: 1)
            try statement.bind(token, at: 2)
            try statement.bind(kind, at: 3)
            try statement.bind(clock.nowMilliseconds, at: 4)
            try statement.step()
        }
        registrations?.insert(Registration(relayURL: relayURL, token: token, kind: kind))
    }

    /// Forgets every cached registration of `token` of `kind` (the relay no longer binds it).
    public func forgetRegistration(token: String, kind: String) throws {
        try connection.withStatement("DELETE FROM relay_registrations WHERE token = ? AND kind = ?") { statement in
            try statement.bind(token, at: 1)
            try statement.bind(kind, at: 2)
            try statement.step()
        }
        registrations = registrations?.filter { !($0.token == token && $0.kind == kind) }
    }

    /// Drops every cached registration for another relay URL (all of them when `relayURL` is nil).
    public func clearRegistrations(except relayURL: String?) throws {
        if let relayURL { try run("DELETE FROM relay_registrations WHERE relay_url <> ?", relayURL) } else {
            try connection.execute("DELETE FROM relay_registrations")
        }
        registrations = registrations?.filter { $0.relayURL == relayURL }
    }

    private func cachedRegistrations() throws -> Set<Registration> {
        if let registrations { return registrations }
        let loaded = try connection.withStatement("SELECT relay_url, token, kind FROM relay_registrations") { statement in
            var rows = Set<Registration>()
            while try statement.step() {
                rows.insert(Registration(relayURL: statement.string(at: 0) ?? "", token: statement.string(at: 1) ?? "",
                                         kind: statement.string(at: 2) ?? ""))
            }
            return rows
        }
        registrations = loaded
        return loaded
    }
}
