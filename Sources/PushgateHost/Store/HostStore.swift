import Foundation
import PushgateCore
import PushgateStore
import Synchronization

/// `host.sqlite`: alert tokens, the badge tag set, the relay registration cache, the outbox,
/// hapi devices and the imported Live Activity data. The actor runs on the ``HostDatabase``'s
/// queue, where every statement runs; an event's badge, tokens and registrations are answered
/// from memory (``StoreMemory``) on the caller's thread.
///
/// - Important: protocol/host-api.md §8 — WAL, busy timeout, numbered migrations; §4 — the badge set is
///   persisted so a restart keeps the count (a tag that follows a write within
///   ``badgeWriteDelayMs`` is written with the others due then; shutdown writes the rest).
public actor HostStore {
    /// The connection's owner; this actor runs on its queue.
    nonisolated let database: HostDatabase
    let clock: any WallClock

    public nonisolated var unownedExecutor: UnownedSerialExecutor { database.unownedExecutor }

    /// Whether any hapi device row exists: kept by this store's writes (only the host API
    /// writes that table), so an event for a host without hapi devices skips the read.
    private nonisolated let hapiDevicesExist: Atomic<Bool>
    /// What an event is answered from without a statement.
    nonisolated let memory: Mutex<StoreMemory>
    /// Where a failed badge write is reported.
    let logger: Logger?
    /// Whether the last badge write failed (a run of failures is logged once).
    var badgeWriteFailing = false
    /// The task a scheduled write runs in, once its time came.
    nonisolated let badgeWriteTask = Mutex<Task<Void, Never>?>(nil)
    /// Rows in `outbox`, counted on first use (``outboxDepth()``).
    var outboxRows: Int?

    /// One row of `relay_registrations`.
    struct Registration: Hashable {
        let relayURL: String
        let token: String
        let kind: String
    }

    /// How long after a write of `badge_tags` a new tag waits, so that a burst of events shares
    /// one commit; a tag that comes later is written at once. See docs/host.md, "Store".
    public static let badgeWriteDelayMs: Int64 = 50
    /// How long the alert tokens are answered from memory.
    public static let alertTokenCacheMs: Int64 = 1000

    /// A store over `database`. With a `scheduler` badge tags are written behind: those that
    /// follow a write within ``badgeWriteDelayMs`` are written together when it is up, and a
    /// failed write is reported to `logger` and tried again.
    public init(database: HostDatabase, clock: any WallClock, scheduler: (any Scheduler)? = nil, logger: Logger? = nil) throws {
        let (devices, tags) = try database.readAtOpen { connection in
            let devices = try connection.withStatement("SELECT EXISTS (SELECT 1 FROM hapi_devices)") { statement in
                try statement.step() && statement.int64(at: 0) == 1
            }
            let tags = try connection.withStatement("SELECT tag FROM badge_tags") { statement in
                var tags: Set<String> = []
                while try statement.step() { tags.insert(statement.string(at: 0) ?? "") }
                return tags
            }
            return (devices, tags)
        }
        self.database = database
        hapiDevicesExist = Atomic(devices)
        memory = Mutex(StoreMemory(badge: BadgeSet(tags: tags), writeBehind: scheduler))
        self.clock = clock
        self.logger = logger
    }

    /// Opens (creating and migrating) a database of its own at `path`: for a process that only
    /// uses this store (the import command, tests).
    public init(path: String, clock: any WallClock, scheduler: (any Scheduler)? = nil, logger: Logger? = nil) throws {
        try self.init(database: HostDatabase(path: path), clock: clock, scheduler: scheduler, logger: logger)
    }

    /// The database's connection (this actor runs on its queue).
    var connection: SQLiteConnection { database.connection() }

    /// False only when the store holds no hapi device (read without waiting for the store).
    public nonisolated var mayHaveHapiDevices: Bool { hapiDevicesExist.load(ordering: .acquiring) }

    /// Records whether hapi devices exist after a write to their table.
    func noteHapiDevices(exist: Bool) { hapiDevicesExist.store(exist, ordering: .releasing) }

    // MARK: Alert tokens

    /// Stores a token or refreshes its locale, environment, client and last-seen time.
    public func upsertAlertToken(_ token: AlertToken) throws {
        let now = clock.nowMilliseconds
        memory.withLock { $0.alertTokens = nil }
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
            try statement.bind(token.platform.rawValue, at: 3)
            try bindOptional(statement, token.locale, at: 4)
            try statement.bind(token.environment, at: 5)
            try statement.bind(token.createdAtMs > 0 ? token.createdAtMs : now, at: 6)
            try statement.bind(token.lastSeenAtMs > 0 ? token.lastSeenAtMs : now, at: 7)
            try statement.step()
        }
    }

    /// Forgets a token and its cached registrations; returns the platform it was stored with,
    /// nil when it was not known.
    @discardableResult
    public func deleteAlertToken(_ token: String) throws -> AlertToken.Platform? {
        let platform = try connection.durably {
            try connection.transaction(.immediate) { () throws -> AlertToken.Platform? in
                let stored = try connection.withStatement("SELECT platform FROM alert_tokens WHERE token = ?") { statement in
                    try statement.bind(token, at: 1)
                    return try statement.step() ? Self.platform(statement.string(at: 0)) : nil
                }
                try run("DELETE FROM relay_registrations WHERE token = ?", token)
                try run("DELETE FROM alert_tokens WHERE token = ?", token)
                return stored
            }
        }
        memory.withLock { memory in
            memory.registrations = memory.registrations?.filter { $0.key.token != token }
            memory.alertTokens = nil
        }
        return platform
    }

    /// Every alert token, oldest first.
    public func alertTokens() throws -> [AlertToken] {
        try connection.withStatement("""
            SELECT token, client, platform, locale, environment, created_at, last_seen_at FROM alert_tokens ORDER BY created_at, token
            """) { statement in
            var tokens: [AlertToken] = []
            while try statement.step() {
                tokens.append(AlertToken(token: statement.string(at: 0) ?? "", client: statement.string(at: 1),
                                         platform: Self.platform(statement.string(at: 2)), locale: statement.string(at: 3),
                                         environment: statement.string(at: 4) ?? "production",
                                         createdAtMs: statement.int64(at: 5), lastSeenAtMs: statement.int64(at: 6)))
            }
            return tokens
        }
    }

    /// A stored `platform`; only `ios` and `android` are ever written.
    private static func platform(_ text: String?) -> AlertToken.Platform { text.flatMap(AlertToken.Platform.init) ?? .ios }

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
        try connection.raiseEventVersion(id, to: version)
    }

    /// Every stored event version by id.
    public func eventVersions() throws -> [String: Int64] {
        try connection.withStatement("SELECT id, version FROM event_versions") { statement in
            var versions: [String: Int64] = [:]
            while try statement.step() { versions[statement.string(at: 0) ?? ""] = statement.int64(at: 1) }
            return versions
        }
    }

    /// Counts for `GET /api/status`: alert tokens (of which Android ones), Live Activity tokens, badge.
    public func counts() throws -> (alertTokens: Int, androidAlertTokens: Int, liveActivityTokens: Int, badge: Int) {
        (try count("alert_tokens"), try count("alert_tokens WHERE platform = 'android'"), try count("live_activity_tokens"),
         memory.withLock { $0.badge.count })
    }

    // MARK: Helpers

    private func count(_ table: String) throws -> Int {
        // `table` (with its condition) is one of this file's literals, never input.
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
