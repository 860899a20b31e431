/// The relay's PostgreSQL schema, as numbered migrations, and the advisory locks its binding and
/// replay writers take (the gateway's are per host: ``GatewayHostLock``).
enum PostgreSQLSchema {
    /// Taken first by every binding write transaction and every migration step, so that the
    /// binding rules (read the count, then insert or evict) run one transaction at a time across
    /// all relay instances, as under SQLite's single writer.
    static let bindingsLockKey: Int64 = 0x7075_7368_6761_0001

    static let migrations = [
        // The shape of SQLite's migration 1 (BindingSchema). "C" collation compares bytes as
        // SQLite does, so ties in eviction order fall the same way whatever the database locale.
        Migration(version: 1, sql: """
            CREATE TABLE bindings (
                token TEXT COLLATE "C" NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('alert', 'liveactivity')),
                server_id TEXT COLLATE "C" NOT NULL,
                registered_at BIGINT NOT NULL,
                PRIMARY KEY (token, kind, server_id)
            );
            CREATE TABLE token_count (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                tokens BIGINT NOT NULL CHECK (tokens >= 0)
            );
            INSERT INTO token_count (id, tokens) VALUES (1, 0);
            """),
        // The replay set shared by every relay instance (protocol/signed-relay.md §2). Keys are
        // SHA-256 digests of the replay key, so no signature is kept at rest.
        Migration(version: 2, sql: """
            CREATE TABLE replay_keys (
                key TEXT COLLATE "C" PRIMARY KEY,
                expires_at BIGINT NOT NULL
            );
            CREATE INDEX replay_keys_expiry ON replay_keys (expires_at);
            -- Rows in replay_keys, expired ones included until purged; kept in step by every write
            -- so the maxReplayEntries check reads one row.
            CREATE TABLE replay_count (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                keys BIGINT NOT NULL CHECK (keys >= 0)
            );
            INSERT INTO replay_count (id, keys) VALUES (1, 0);
            """),
        // The gateway's tables (protocol/gateway.md §8), SQLite's DDL as is. `rowid` stands in for
        // SQLite's implicit one, which orders registrations made in the same millisecond.
        Migration(version: 3, sql: GatewaySchema.tables + """

            ALTER TABLE push_devices ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;
            """),
        // The binding quotas (SQLite's migration 3), and a replay set that no longer counts its
        // rows: keys are inserted with ON CONFLICT DO NOTHING and purged by their expiry
        // (docs/store.md, "Replay set").
        Migration(version: 4, sql: BindingSchema.quotas(version: 4, integer: "BIGINT", text: "TEXT COLLATE \"C\"",
                                                        tableOptions: "").sql + """

            DROP TABLE replay_count;
            """),
        // The gateway's outbox (SQLite's migration 4), with the same stand-in for SQLite's
        // rowid, which orders rows accepted in the same millisecond.
        Migration(version: 5, sql: GatewaySchema.outbox + """

            ALTER TABLE push_outbox ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;
            """),
        // The outbox's window ids (SQLite's migration 5).
        Migration(version: 6, sql: GatewaySchema.outboxWindows),
        // The `android` binding kind (SQLite's migration 6); the column's CHECK has
        // PostgreSQL's default name. NOT VALID: the old, narrower CHECK vouches for every row, so
        // the table is not scanned under a lock every relay on the database would wait for.
        Migration(version: 7, sql: """
            ALTER TABLE bindings DROP CONSTRAINT bindings_kind_check;
            ALTER TABLE bindings ADD CONSTRAINT bindings_kind_check CHECK (kind IN ('alert', 'liveactivity', 'android')) NOT VALID;
            """),
        // The `liveactivitystart` binding kind (SQLite's migration 7), added as `android` was.
        Migration(version: 8, sql: """
            ALTER TABLE bindings DROP CONSTRAINT bindings_kind_check;
            ALTER TABLE bindings ADD CONSTRAINT bindings_kind_check
                CHECK (kind IN ('alert', 'liveactivity', 'android', 'liveactivitystart')) NOT VALID;
            """),
    ]

    /// Brings the database at `url` up to the last migration on a short-lived connection of
    /// its own that holds the bindings lock while it migrates.
    /// - Throws: ``PostgreSQLError``, ``MigrationError`` (a database from a newer build).
    static func migrate(url: PostgreSQLURL, applicationName: String) throws {
        let connection = try PostgreSQLConnection(url: url, session: .init(writeLockKey: bindingsLockKey, applicationName: applicationName))
        try Migrator.migrate(connection, with: migrations)
    }
}
