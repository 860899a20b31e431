/// The relay database schema's binding steps, as numbered migrations (``RelaySchema`` puts
/// them in order with the gateway's).
enum BindingSchema {
    static let bindings = Migration(version: 1, sql: """
        -- The primary key keeps each token's bindings (at most 16) next to each other, which
        -- is all eviction needs: the oldest is picked among those rows. A separate
        -- (token, kind, registered_at) index would double the pages every register writes.
        CREATE TABLE bindings (
            token TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('alert', 'liveactivity')),
            server_id TEXT NOT NULL,
            registered_at INTEGER NOT NULL,
            PRIMARY KEY (token, kind, server_id)
        ) WITHOUT ROWID;
        -- Distinct (token, kind) pairs, kept in step with bindings by every write so that
        -- the maxTokens check and the metrics gauge never scan the table.
        CREATE TABLE token_count (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            tokens INTEGER NOT NULL CHECK (tokens >= 0)
        );
        INSERT INTO token_count (id, tokens) VALUES (1, 0);
        """)

    /// `android` joins the kinds (docs/relay.md "Android tokens").
    static let androidKind = remadeBindings(version: 6, kinds: ["alert", "liveactivity", "android"])

    /// `liveactivitystart` joins the kinds (push-to-start tokens, docs/relay.md "Live Activity").
    static let liveActivityStartKind = remadeBindings(version: 7, kinds: ["alert", "liveactivity", "android", "liveactivitystart"])

    /// The bindings table made again with `kinds` in its CHECK: SQLite cannot change a CHECK
    /// constraint in place, so the rows are copied into a new table that takes the old one's name.
    private static func remadeBindings(version: Int32, kinds: [String]) -> Migration {
        Migration(version: version, sql: """
            CREATE TABLE bindings_remade (
                token TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN (\(kinds.map { "'\($0)'" }.joined(separator: ", ")))),
                server_id TEXT NOT NULL,
                registered_at INTEGER NOT NULL,
                PRIMARY KEY (token, kind, server_id)
            ) WITHOUT ROWID;
            INSERT INTO bindings_remade (token, kind, server_id, registered_at)
                SELECT token, kind, server_id, registered_at FROM bindings;
            DROP TABLE bindings;
            ALTER TABLE bindings_remade RENAME TO bindings;
            """)
    }

    /// The caps of docs/relay.md "Bindings": tokens per host and new hosts per token per day.
    /// `integer`, `text` and `tableOptions` spell the engine's column types and table options.
    static func quotas(version: Int32, integer: String, text: String, tableOptions: String) -> Migration {
        Migration(version: version, sql: """
            -- Bindings per serverId, kept in step by every write (MAX_TOKENS_PER_HOST); a host
            -- with none has no row.
            CREATE TABLE host_token_count (
                server_id \(text) PRIMARY KEY,
                tokens \(integer) NOT NULL CHECK (tokens >= 0)
            )\(tableOptions);
            INSERT INTO host_token_count (server_id, tokens) SELECT server_id, count(*) FROM bindings GROUP BY server_id;
            -- Each host that joined a token others held, kept a day (NEW_BINDINGS_PER_TOKEN_PER_DAY);
            -- a binding removed and made again counts twice.
            CREATE TABLE binding_admissions (
                token \(text) NOT NULL,
                kind TEXT NOT NULL,
                admitted_at \(integer) NOT NULL,
                server_id \(text) NOT NULL,
                PRIMARY KEY (token, kind, admitted_at, server_id)
            )\(tableOptions);
            CREATE INDEX binding_admissions_age ON binding_admissions (admitted_at);
            """)
    }
}
