import PushgateCore
import PushgateStore

/// The push-to-start tokens of `host.sqlite` (`live_activity_start_tokens`, migration 8): one per
/// device (`client`), read from the file when a session turns busy, which is rare enough to need
/// no copy in memory. Registrations and deletions are fsynced before the API answers.
extension LiveActivityStore {
    /// What storing a push-to-start token did.
    public enum StartRegistrationOutcome: Sendable, Equatable {
        /// Stored; `replaced` is the device's previous token, which no longer starts anything.
        case stored(replaced: String?)
        /// The token is registered by another client.
        case forbidden
    }

    /// Stores or refreshes the device's push-to-start token; a new token replaces the device's
    /// old one and keeps its last start, so the cooldown holds across a token change.
    public func registerStart(_ registration: LiveActivityStartRegistration, nowMs: Int64) throws -> StartRegistrationOutcome {
        try connection.durably { try connection.transaction(.immediate) {
            if let holder = try startToken(where: "token = ?", registration.token), holder.client != registration.client {
                return .forbidden
            }
            let previous = try startToken(where: "client = ?", registration.client)
            try connection.withStatement("""
                INSERT INTO live_activity_start_tokens (client, token, environment, created_at, last_seen_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (client) DO UPDATE SET token = excluded.token, environment = excluded.environment,
                    last_seen_at = excluded.last_seen_at
                """) { statement in
                try statement.bind(registration.client, at: 1)
                try statement.bind(registration.token, at: 2)
                try statement.bind(registration.environment, at: 3)
                try statement.bind(nowMs, at: 4)
                try statement.bind(nowMs, at: 5)
                try statement.step()
            }
            return .stored(replaced: previous.map(\.token).flatMap { $0 == registration.token ? nil : $0 })
        } }
    }

    /// Removes `token` if `client` registered it.
    public func removeStart(token: String, client: String) throws -> RemovalOutcome {
        try connection.durably { try connection.transaction(.immediate) {
            guard let record = try startToken(where: "token = ?", token) else { return .notFound }
            guard record.client == client else { return .forbidden }
            try deleteStart(token)
            return .removed(token)
        } }
    }

    /// Every push-to-start token, by client.
    public func startTokens() throws -> [LiveActivityStartToken] {
        try connection.withStatement("""
            SELECT token, client, environment, last_started_at, last_seen_at FROM live_activity_start_tokens ORDER BY client
            """) { statement in
            var tokens: [LiveActivityStartToken] = []
            while try statement.step() { tokens.append(Self.startToken(statement)) }
            return tokens
        }
    }

    /// Records that the device accepted a start at `nowMs`.
    public func markStarted(client: String, nowMs: Int64) throws {
        try connection.withStatement("UPDATE live_activity_start_tokens SET last_started_at = ? WHERE client = ?") { statement in
            try statement.bind(nowMs, at: 1)
            try statement.bind(client, at: 2)
            try statement.step()
        }
    }

    /// Removes push-to-start tokens the provider reported dead.
    public func removeStart(tokens: [String]) throws {
        guard !tokens.isEmpty else { return }
        try connection.transaction(.immediate) { for token in tokens { try deleteStart(token) } }
    }

    /// Removes and returns every push-to-start token not registered since `cutoffMs`.
    public func expireStart(notSeenSince cutoffMs: Int64) throws -> [String] {
        let expired = try startTokens().filter { $0.lastSeenAtMs < cutoffMs }.map(\.token)
        try removeStart(tokens: expired)
        return expired
    }

    private func startToken(where condition: String, _ value: String) throws -> LiveActivityStartToken? {
        try connection.withStatement("""
            SELECT token, client, environment, last_started_at, last_seen_at FROM live_activity_start_tokens WHERE \(condition)
            """) { statement in
            try statement.bind(value, at: 1)
            return try statement.step() ? Self.startToken(statement) : nil
        }
    }

    private func deleteStart(_ token: String) throws {
        try connection.withStatement("DELETE FROM live_activity_start_tokens WHERE token = ?") { statement in
            try statement.bind(token, at: 1)
            try statement.step()
        }
    }

    private static func startToken(_ statement: SQLiteStatement) -> LiveActivityStartToken {
        LiveActivityStartToken(token: statement.string(at: 0) ?? "", client: statement.string(at: 1) ?? "",
                               environment: statement.string(at: 2) ?? "production",
                               lastStartedAtMs: statement.isNull(at: 3) ? nil : statement.int64(at: 3),
                               lastSeenAtMs: statement.int64(at: 4))
    }
}
