import Foundation
import PushgateCore
import PushgateStore
import Synchronization

/// `host.sqlite`: alert tokens, the badge tag set, the relay registration cache, and the
/// imported Live Activity data. Calls run one at a time, each on its caller's thread when the
/// store is idle (``CallerRunsExecutor``): the statements are short and seldom fsync.
///
/// - Important: host.md §8 — WAL, busy timeout, numbered migrations; §4 — the badge set is
///   persisted so a restart keeps the count.
public actor HostStore {
    private let executor: CallerRunsExecutor
    let connection: SQLiteConnection
    let clock: any WallClock

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Whether any hapi device row exists: kept by this store's writes (only the host API
    /// writes that table), so an event for a host without hapi devices skips the read.
    private nonisolated let hapiDevicesExist: Atomic<Bool>
    /// The badge set's size, counted once at open: only this store writes `badge_tags`, and
    /// counting the rows on every event would cost time in proportion to the set.
    private var badgeSize: Int
    /// The relay registration cache's rows, read once on first use: only this store writes
    /// `relay_registrations`, so an event looks its tokens up without a statement.
    var registrations: Set<Registration>?

    /// One row of `relay_registrations`.
    struct Registration: Hashable {
        let relayURL: String
        let token: String
        let kind: String
    }

    /// Opens (creating and migrating) the database at `path`.
    public init(path: String, clock: any WallClock) throws {
        executor = CallerRunsExecutor(label: "pushgate.host.store")
        try DatabaseDirectory.prepare(for: path)
        // Per-event bookkeeping (badge tags, registration cache) needs no fsync of its own; a
        // token a phone was told is stored does (`durably`). See docs/host.md, "Store".
        let connection = try SQLiteConnection(path: path, durability: .normal)
        try Migrator.migrate(connection, with: HostMigrations.all)
        let devices = try connection.withStatement("SELECT EXISTS (SELECT 1 FROM hapi_devices)") { statement in
            try statement.step() && statement.int64(at: 0) == 1
        }
        hapiDevicesExist = Atomic(devices)
        badgeSize = try connection.withStatement("SELECT count(*) FROM badge_tags") { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
        self.connection = connection
        self.clock = clock
    }

    /// False only when the store holds no hapi device (read without waiting for the store).
    public nonisolated var mayHaveHapiDevices: Bool { hapiDevicesExist.load(ordering: .acquiring) }

    /// Records whether hapi devices exist after a write to their table.
    func noteHapiDevices(exist: Bool) { hapiDevicesExist.store(exist, ordering: .releasing) }

    // MARK: Alert tokens

    /// Stores a token or refreshes its locale, environment, client and last-seen time.
    public func upsertAlertToken(_ token: AlertToken) throws {
        let now = clock.nowMilliseconds
        try connection.durably { try upsert(token, now: now) }
    }

    private func upsert(_ token: AlertToken, now: Int64) throws {
        try connection.withStatement("""
            INSERT INTO alert_tokens (token, client, platform, locale, environment, created_at, last_seen_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (token) DO UPDATE SET client = excluded.client, platform = excluded.platform,
                locale = excluded.locale, environment = excluded.environment, last_seen_at = excluded.last_seen_at
            """) { statement in
            try statement.bind(token.token, at: 1)
            try bindOptional(statement, token.client, at: 2)
            try statement.bind(token.platform, at: 3)
            try bindOptional(statement, token.locale, at: 4)
            try statement.bind(token.environment, at: 5)
            try statement.bind(token.createdAtMs > 0 ? token.createdAtMs : now, at: 6)
            try statement.bind(token.lastSeenAtMs > 0 ? token.lastSeenAtMs : now, at: 7)
            try statement.step()
        }
    }

    /// Forgets a token and its cached registrations; returns whether it was known.
    @discardableResult
    public func deleteAlertToken(_ token: String) throws -> Bool {
        let known = try connection.durably {
            try connection.transaction(.immediate) {
                try run("DELETE FROM relay_registrations WHERE token = ?", token)
                try run("DELETE FROM alert_tokens WHERE token = ?", token)
                return connection.changes > 0
            }
        }
        registrations = registrations?.filter { $0.token != token }
        return known
    }

    /// Every alert token, oldest first.
    public func alertTokens() throws -> [AlertToken] {
        try connection.withStatement("""
            SELECT token, client, platform, locale, environment, created_at, last_seen_at FROM alert_tokens ORDER BY created_at, token
            """) { statement in
            var tokens: [AlertToken] = []
            while try statement.step() {
                tokens.append(AlertToken(token: statement.string(at: 0) ?? "", client: statement.string(at: 1),
                                         platform: statement.string(at: 2) ?? "ios", locale: statement.string(at: 3),
                                         environment: statement.string(at: 4) ?? "production",
                                         createdAtMs: statement.int64(at: 5), lastSeenAtMs: statement.int64(at: 6)))
            }
            return tokens
        }
    }

    // MARK: Badge

    /// Adds `tag` to the badge set and returns the set's size.
    public func addBadgeTag(_ tag: String) throws -> Int {
        if try insertBadgeTag(tag) { badgeSize += 1 }
        return badgeSize
    }

    /// The start of an alert round in one store call and one transaction: the iOS alert tokens,
    /// and the badge after adding `tag` — added only when there is a tag (a transport) and a
    /// token to push to.
    public func beginAlertRound(tag: String?) throws -> (tokens: [AlertToken], badge: Int) {
        guard let tag else { return (try iosAlertTokens(), badgeSize) }
        let (tokens, added) = try connection.transaction(.immediate) {
            let tokens = try iosAlertTokens()
            return (tokens, try !tokens.isEmpty && insertBadgeTag(tag))
        }
        if added { badgeSize += 1 }
        return (tokens, badgeSize)
    }

    private func iosAlertTokens() throws -> [AlertToken] { try alertTokens().filter { $0.platform == "ios" } }

    /// Whether `tag` was new to the badge set; the caller counts it once its write commits.
    private func insertBadgeTag(_ tag: String) throws -> Bool {
        try connection.withStatement("INSERT OR IGNORE INTO badge_tags (tag, added_at) VALUES (?, ?)") { statement in
            try statement.bind(tag, at: 1)
            try statement.bind(clock.nowMilliseconds, at: 2)
            try statement.step()
        }
        return connection.changes > 0
    }

    /// Empties the badge set.
    public func clearBadge() throws {
        try connection.execute("DELETE FROM badge_tags")
        badgeSize = 0
    }

    /// The badge set's size.
    public func badgeCount() throws -> Int { badgeSize }

    // MARK: Live Activity data (imported; used by the Live Activity engine)

    /// Stores an imported Live Activity token.
    public func upsertLiveActivityToken(_ token: ImportedLiveActivityToken) throws {
        let now = clock.nowMilliseconds
        try connection.withStatement("""
            INSERT OR REPLACE INTO live_activity_tokens (token, activity_id, session_id, client, snapshot, created_at, last_seen_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """) { statement in
            try statement.bind(token.token, at: 1)
            try bindOptional(statement, token.activityId, at: 2)
            try bindOptional(statement, token.sessionId, at: 3)
            try bindOptional(statement, token.client, at: 4)
            try statement.bind(token.snapshotJSON, at: 5)
            try statement.bind(now, at: 6)
            try statement.bind(now, at: 7)
            try statement.step()
        }
    }

    /// Every stored Live Activity token.
    public func liveActivityTokens() throws -> [ImportedLiveActivityToken] {
        try connection.withStatement("SELECT token, activity_id, session_id, client, snapshot FROM live_activity_tokens ORDER BY token") { statement in
            var tokens: [ImportedLiveActivityToken] = []
            while try statement.step() {
                tokens.append(ImportedLiveActivityToken(token: statement.string(at: 0) ?? "", activityId: statement.string(at: 1),
                                                        sessionId: statement.string(at: 2), client: statement.string(at: 3),
                                                        snapshotJSON: statement.string(at: 4) ?? "[]"))
            }
            return tokens
        }
    }

    /// Raises the stored event version of `id` to at least `version`.
    public func raiseEventVersion(_ id: String, to version: Int64) throws {
        try connection.withStatement("""
            INSERT INTO event_versions (id, version) VALUES (?, ?)
            ON CONFLICT (id) DO UPDATE SET version = max(version, excluded.version)
            """) { statement in
            try statement.bind(id, at: 1)
            try statement.bind(version, at: 2)
            try statement.step()
        }
    }

    /// Every stored event version by id.
    public func eventVersions() throws -> [String: Int64] {
        try connection.withStatement("SELECT id, version FROM event_versions") { statement in
            var versions: [String: Int64] = [:]
            while try statement.step() { versions[statement.string(at: 0) ?? ""] = statement.int64(at: 1) }
            return versions
        }
    }

    /// Counts for `GET /api/status`.
    public func counts() throws -> (alertTokens: Int, liveActivityTokens: Int, badge: Int) {
        (try count("alert_tokens"), try count("live_activity_tokens"), badgeSize)
    }

    // MARK: Helpers

    private func count(_ table: String) throws -> Int {
        // `table` is one of this file's literals, never input.
        try connection.withStatement("SELECT count(*) FROM \(table)") { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    func run(_ sql: String, _ text: String) throws {
        try connection.withStatement(sql) { statement in
            try statement.bind(text, at: 1)
            try statement.step()
        }
    }

    func bindOptional(_ statement: SQLiteStatement, _ value: String?, at index: Int32) throws {
        if let value { try statement.bind(value, at: index) } else { try statement.bindNull(at: index) }
    }
}
