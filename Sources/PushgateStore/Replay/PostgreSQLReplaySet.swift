import PushgateCore

/// The replay set in PostgreSQL, shared by every relay instance on the database.
///
/// Records, forgets and purges are group-committed on one connection; each transaction first
/// takes the replay advisory lock, so "is the key there, is there room, insert" runs one
/// transaction at a time across instances and a key accepted by one instance is a replay at
/// every other. Rows hold the SHA-256 of the key (no signature at rest, fixed size).
///
/// Commits run with `synchronous_commit = off`: a committed key is visible to every instance at
/// once; a crash of the database server may forget the keys of the last fraction of a second
/// (the in-memory set forgets all of them at every relay restart).
///
/// - Important: relay-protocol.md §2 (replay, `maxReplayEntries`, shared store).
public final class PostgreSQLReplaySet: ReplayKeyStore {
    private let worker: ConnectionWorker<PostgreSQLConnection>
    private let commits: GroupCommitQueue<PostgreSQLConnection>
    private let ttlMs: Int64
    private let maxEntries: Int

    /// Shown in `pg_stat_activity` for the set's connection.
    public static let applicationName = "pushgate-replay"

    private init(worker: ConnectionWorker<PostgreSQLConnection>, ttlMs: Int64, maxEntries: Int) {
        self.worker = worker
        self.commits = GroupCommitQueue(worker: worker)
        self.ttlMs = ttlMs
        self.maxEntries = maxEntries
    }

    /// Connects to `url`, migrating the schema.
    /// - Parameters:
    ///   - ttlMs: how long a key lives (`replayMs`).
    ///   - maxEntries: how many keys all instances together may hold (`maxReplayEntries`).
    /// - Throws: ``PostgreSQLError`` (the password never appears in it), ``MigrationError``.
    public static func open(url: PostgreSQLURL, ttlMs: Int64, maxEntries: Int) async throws -> PostgreSQLReplaySet {
        precondition(ttlMs > 0 && maxEntries > 0, "replay keys need a positive time to live and room")
        let worker = ConnectionWorker<PostgreSQLConnection>(label: "pushgate.store.pg.replay")
        try await worker.open {
            try PostgreSQLSchema.migrate(url: url, applicationName: applicationName)
            return try PostgreSQLConnection(url: url, session: .init(
                writeLockKey: PostgreSQLSchema.replayLockKey, setup: ["SET synchronous_commit = off"],
                applicationName: applicationName))
        }
        return PostgreSQLReplaySet(worker: worker, ttlMs: ttlMs, maxEntries: maxEntries)
    }

    public func record(_ key: String, nowMs: Int64) async throws -> ReplayOutcome {
        let (digest, ttlMs, maxEntries) = (Self.digest(key), ttlMs, maxEntries)
        return try await commits.submit { connection in
            try ReplayTables.record(digest, nowMs: nowMs, ttlMs: ttlMs, maxEntries: maxEntries, on: connection)
        }
    }

    public func forget(_ key: String) async throws {
        let digest = Self.digest(key)
        try await commits.submit { connection in try ReplayTables.forget(digest, on: connection) }
    }

    public func purge(nowMs: Int64) async throws {
        try await commits.submit { connection in try ReplayTables.purge(nowMs: nowMs, on: connection) }
    }

    public func keyCount() async throws -> Int {
        try await worker.run { connection in try ReplayTables.count(on: connection) }
    }

    /// Answers every accepted call, then closes the connection; later calls throw ``StoreClosedError``.
    public func close() async {
        await commits.close()
        await worker.close()
    }

    private static func digest(_ key: String) -> String { Base64URL.encode(SHA256.hash(Array(key.utf8))) }
}
