import PushgateCore
import PushgateStore

/// The Live Activity tables of `host.sqlite` (tokens with their rows, event versions) behind an
/// in-memory copy of the tokens. Every call runs on the ``HostDatabase``'s queue, with its
/// one connection.
///
/// The copy is checked against `live_activity_revision`, which triggers raise on every change
/// to `live_activity_tokens` from any connection (`import-openchamber` included): a call that
/// finds the revision unchanged costs that one read.
///
/// - Important: protocol/host-api.md §6 — a refresh tick with no Live Activity tokens costs one store read;
///   §8 — tokens, snapshots and event versions live in `host.sqlite`.
public actor LiveActivityStore {
    /// What storing a registration did.
    public enum RegistrationOutcome: Sendable, Equatable {
        /// Stored; `replaced` is the activity's previous token, `evicted` the client's oldest tokens over the cap.
        case stored(replaced: String?, evicted: [String])
        /// The token is registered by another client.
        case forbidden
    }

    /// What a removal did.
    public enum RemovalOutcome: Sendable, Equatable {
        case removed(String)
        case notFound
        /// The token is registered by another client and stays.
        case forbidden
    }

    /// The connection's owner; this actor runs on its queue.
    nonisolated let database: HostDatabase
    private var records: [String: LiveActivityRecord] = [:]
    private var tokensByClient: [String: Set<String>] = [:]
    /// `records` by creation time, rebuilt on demand after a token is added or removed.
    private var ordered: [LiveActivityRecord]?
    /// Each token's index in `ordered`, so saving rows keeps the order without sorting again.
    private var positions: [String: Int] = [:]
    /// The revision `records` matches; nil until loaded or after a failed write.
    private var revision: Int64?
    /// SQL reads so far (statements that return rows), for tests and `pushgate-dev bench live-activity`.
    public private(set) var reads = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor { database.unownedExecutor }

    /// A store over `database`. What a phone was told is stored is fsynced (`durably`); the
    /// rows and versions a tick writes commit with synchronous=NORMAL (they survive the process
    /// being killed).
    public init(database: HostDatabase) { self.database = database }

    /// Opens (creating and migrating) a database of its own at `path` (benchmarks, tests).
    public init(path: String) throws { self.init(database: try HostDatabase(path: path)) }

    /// The database's connection (this actor runs on its queue).
    var connection: SQLiteConnection { database.connection() }

    // MARK: Reading

    /// Every token, oldest first.
    public func all() throws -> [LiveActivityRecord] {
        try synchronize()
        if let ordered { return ordered }
        let sorted = records.values.sorted { ($0.createdAtMs, $0.token) < ($1.createdAtMs, $1.token) }
        ordered = sorted
        positions = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1.token, $0) })
        return sorted
    }

    /// The token's record, if it is registered.
    public func record(_ token: String) throws -> LiveActivityRecord? {
        try synchronize()
        return records[token]
    }

    // MARK: Writing

    /// Stores or refreshes a registration: one token per (client, activity), at most
    /// `maxPerClient` per client (least recently seen evicted). The rows are the request's, else
    /// the token's own, else those of the token it replaces, else `defaultRows`.
    public func register(_ registration: LiveActivityRegistration, defaultRows: [LiveActivityItem], maxPerClient: Int,
                         nowMs: Int64) throws -> RegistrationOutcome {
        try connection.durably { try write {
            let existing = records[registration.token]
            if let existing, existing.client != registration.client { return .forbidden }
            let siblings = (tokensByClient[Self.clientKey(registration.client)] ?? []).compactMap { records[$0] }
            let replaced = siblings.first { $0.activityId == registration.activityId && $0.token != registration.token }
            if let replaced { try delete(replaced.token) }
            try upsert(LiveActivityRecord(
                token: registration.token, client: registration.client, activityId: registration.activityId,
                sessionId: registration.sessionId, environment: registration.environment,
                rows: registration.rows ?? existing?.rows ?? replaced?.rows ?? defaultRows,
                createdAtMs: existing?.createdAtMs ?? nowMs, lastSeenAtMs: nowMs))
            let others = (tokensByClient[Self.clientKey(registration.client)] ?? []).subtracting([registration.token])
                .compactMap { records[$0] }
                .sorted { ($0.lastSeenAtMs, $0.token) < ($1.lastSeenAtMs, $1.token) }
            let evicted = others.prefix(max(0, others.count + 1 - maxPerClient)).map(\.token)
            for token in evicted { try delete(token) }
            return .stored(replaced: replaced?.token, evicted: evicted)
        } }
    }

    /// Removes `token` if `client` registered it.
    public func remove(token: String, client: String?) throws -> RemovalOutcome {
        try connection.durably { try write {
            guard let record = records[token] else { return .notFound }
            guard record.client == client else { return .forbidden }
            try delete(token)
            return .removed(token)
        } }
    }

    /// Removes the token `client` registered for `activityId`.
    public func remove(activityId: String, client: String?) throws -> RemovalOutcome {
        try connection.durably { try write {
            let owned = (tokensByClient[Self.clientKey(client)] ?? []).compactMap { records[$0] }
            guard let record = owned.first(where: { $0.activityId == activityId }) else { return .notFound }
            try delete(record.token)
            return .removed(record.token)
        } }
    }

    /// Removes tokens whose activity is over (accepted `end`) or dead (`drop`).
    public func remove(tokens: [String]) throws {
        guard !tokens.isEmpty else { return }
        try write { for token in tokens where records[token] != nil { try delete(token) } }
    }

    /// Removes and returns every token not seen since `cutoffMs`.
    public func expire(notSeenSince cutoffMs: Int64) throws -> [String] {
        try synchronize()
        let expired = records.values.filter { $0.lastSeenAtMs < cutoffMs }.map(\.token).sorted()
        guard !expired.isEmpty else { return [] }
        return try write {
            for token in expired { try delete(token) }
            return expired
        }
    }

    /// Stores the rows each token now shows (tokens removed meanwhile are skipped).
    public func save(rows updates: [(token: String, rows: [LiveActivityItem])]) throws {
        guard !updates.isEmpty else { return }
        try write {
            for (token, rows) in updates where records[token] != nil {
                try connection.withStatement("UPDATE live_activity_tokens SET snapshot = ? WHERE token = ?") { statement in
                    try statement.bind(LiveActivitySnapshot.json(rows), at: 1)
                    try statement.bind(token, at: 2)
                    try statement.step()
                }
                records[token]?.rows = rows
                if ordered != nil, let position = positions[token] { ordered?[position].rows = rows }
            }
        }
    }

    // MARK: Event versions

    /// The next `eventVersion` for a push about `ids`: max(now in ms, each id's previous + 1,
    /// `provided`), stored for every id before it is used.
    ///
    /// - Important: protocol/host-api.md §6 — persisted per session id and for the aggregate id `live`, so it
    ///   rises across restarts.
    public func nextEventVersion(ids: [String], provided: Int64?, nowMs: Int64) throws -> Int64 {
        try connection.transaction(.immediate) {
            var next = max(nowMs, provided ?? 0)
            for id in ids {
                reads += 1
                if let previous = try connection.eventVersion(id) { next = max(next, previous + 1) }
            }
            for id in ids { try connection.raiseEventVersion(id, to: next) }
            return next
        }
    }

    // MARK: Copy and file in step

    /// Reloads the copy when the revision moved since it was loaded.
    private func synchronize() throws {
        guard try readRevision() != revision else { return }
        try connection.transaction(.deferred) {
            try load()
            revision = try readRevision()
        }
    }

    /// Runs `body` (which changes the file and the copy alike) in a write transaction that first
    /// brings the copy up to date; a failure leaves the copy marked stale.
    private func write<R>(_ body: () throws -> R) throws -> R {
        do {
            return try connection.transaction(.immediate) {
                if try readRevision() != revision { try load() }
                let result = try body()
                revision = try readRevision()
                return result
            }
        } catch {
            revision = nil
            ordered = nil
            throw error
        }
    }

    private func load() throws {
        reads += 1
        records = [:]
        tokensByClient = [:]
        ordered = nil
        try connection.withStatement("""
            SELECT token, client, activity_id, session_id, environment, snapshot, created_at, last_seen_at FROM live_activity_tokens
            """) { statement in
            while try statement.step() {
                let record = LiveActivityRecord(
                    token: statement.string(at: 0) ?? "", client: statement.string(at: 1), activityId: statement.string(at: 2),
                    sessionId: statement.string(at: 3), environment: statement.string(at: 4) ?? "production",
                    rows: LiveActivitySnapshot.storedRows(statement.string(at: 5) ?? "[]"),
                    createdAtMs: statement.int64(at: 6), lastSeenAtMs: statement.int64(at: 7))
                records[record.token] = record
                tokensByClient[Self.clientKey(record.client), default: []].insert(record.token)
            }
        }
    }

    private func readRevision() throws -> Int64? {
        reads += 1
        return try connection.withStatement("SELECT revision FROM live_activity_revision WHERE id = 1") { statement in
            try statement.step() ? statement.int64(at: 0) : nil
        }
    }

    private func upsert(_ record: LiveActivityRecord) throws {
        try connection.withStatement("""
            INSERT INTO live_activity_tokens (token, client, activity_id, session_id, environment, snapshot, created_at, last_seen_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (token) DO UPDATE SET client = excluded.client, activity_id = excluded.activity_id,
                session_id = excluded.session_id, environment = excluded.environment, snapshot = excluded.snapshot,
                last_seen_at = excluded.last_seen_at
            """) { statement in
            try statement.bind(record.token, at: 1)
            try bind(record.client, statement, at: 2)
            try bind(record.activityId, statement, at: 3)
            try bind(record.sessionId, statement, at: 4)
            try statement.bind(record.environment, at: 5)
            try statement.bind(LiveActivitySnapshot.json(record.rows), at: 6)
            try statement.bind(record.createdAtMs, at: 7)
            try statement.bind(record.lastSeenAtMs, at: 8)
            try statement.step()
        }
        records[record.token] = record
        tokensByClient[Self.clientKey(record.client), default: []].insert(record.token)
        ordered = nil
    }

    private func delete(_ token: String) throws {
        try connection.withStatement("DELETE FROM live_activity_tokens WHERE token = ?") { statement in
            try statement.bind(token, at: 1)
            try statement.step()
        }
        if let record = records.removeValue(forKey: token) {
            tokensByClient[Self.clientKey(record.client)]?.remove(token)
        }
        ordered = nil
    }

    private func bind(_ value: String?, _ statement: SQLiteStatement, at index: Int32) throws {
        if let value { try statement.bind(value, at: index) } else { try statement.bindNull(at: index) }
    }

    /// The index key of a client; requests without one share the key "" (an empty client is read as none).
    private static func clientKey(_ client: String?) -> String { client ?? "" }
}
