/// The relay database schema, as numbered migrations.
enum BindingSchema {
    static let migrations = [
        Migration(version: 1, sql: """
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
            """),
    ]
}
