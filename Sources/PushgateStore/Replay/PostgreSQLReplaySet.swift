/// The replay keys in PostgreSQL, shared by every relay instance on the database.
///
/// Each call is one autocommitted statement on the set's own connection: an insert with
/// `ON CONFLICT DO NOTHING` tells which instance recorded a key first, with no count row and no
/// advisory lock for instances to queue on. Rows hold a 16-byte digest of the key (no signature
/// at rest) and are purged by their own expiry.
///
/// Commits run with `synchronous_commit = off`: a committed key is visible to every instance at
/// once; a crash of the database server may forget the keys of the last fraction of a second.
///
/// - Important: docs/relay.md, "Replay set".
public final class PostgreSQLReplaySet: ReplayKeyStore {
    private let worker: ConnectionWorker<PostgreSQLConnection>

    /// Shown in `pg_stat_activity` for the set's connection.
    public static let applicationName = "pushgate-replay"

    private init(worker: ConnectionWorker<PostgreSQLConnection>) { self.worker = worker }

    /// Connects to `url`, migrating the schema.
    /// - Parameter callTimeout: how long each call may take from being asked (``ConnectionWorker``).
    /// - Throws: ``PostgreSQLError`` (the password never appears in it), ``MigrationError``.
    public static func open(url: PostgreSQLURL, callTimeout: Duration? = nil) async throws -> PostgreSQLReplaySet {
        let worker = ConnectionWorker<PostgreSQLConnection>(label: "pushgate.store.pg.replay", callTimeout: callTimeout)
        try await worker.open {
            try PostgreSQLSchema.migrate(url: url, applicationName: applicationName)
            return try PostgreSQLConnection(url: url, session: .init(
                writeLockKey: nil, setup: ["SET synchronous_commit = off"], applicationName: applicationName, callTimeout: callTimeout))
        }
        return PostgreSQLReplaySet(worker: worker)
    }

    public func contains(_ digest: ReplayDigest, nowMs: Int64) async throws -> Bool {
        let key = digest.text
        return try await worker.run { connection in
            try connection.integer(ReplaySQL.contains, [.text(key), .integer(nowMs)]) ?? 0 > 0
        }
    }

    public func insert(_ digest: ReplayDigest, expiresAtMs: Int64) async throws -> Bool {
        let key = digest.text
        return try await worker.run { connection in
            try connection.run(ReplaySQL.insert, [.text(key), .integer(expiresAtMs)]) == 1
        }
    }

    public func forget(_ digest: ReplayDigest) async throws {
        let key = digest.text
        try await worker.run { connection in _ = try connection.run(ReplaySQL.forget, [.text(key)]) }
    }

    public func purge(nowMs: Int64) async throws {
        try await worker.run { connection in _ = try connection.run(ReplaySQL.purge, [.integer(nowMs)]) }
    }

    public func keyCount() async throws -> Int {
        try await worker.run { connection in Int(try connection.integer(ReplaySQL.count, []) ?? 0) }
    }

    /// Closes the connection; later calls throw ``StoreClosedError``.
    public func close() async { await worker.close() }
}

/// The shared replay set's statements. No count row and no lock: the primary key decides which
/// of two concurrent inserts of one key wins, and a row is purged by its own expiry.
enum ReplaySQL {
    /// `$1` key, `$2` now.
    static let contains = "SELECT count(*) FROM replay_keys WHERE key = $1 AND expires_at > $2"
    /// `$1` key, `$2` expiry; inserts no row when the key is held.
    static let insert = "INSERT INTO replay_keys (key, expires_at) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING"
    static let forget = "DELETE FROM replay_keys WHERE key = $1"
    /// `$1` is now.
    static let purge = "DELETE FROM replay_keys WHERE expires_at <= $1"
    static let count = "SELECT count(*) FROM replay_keys"
}
