import PushgateStore

/// The numbered schema steps of `host.sqlite`.
///
/// - Important: host.md §8 — schema changes only through new numbered migrations.
enum HostMigrations {
    static let all = [
        Migration(version: 1, sql: """
            CREATE TABLE alert_tokens (
                token TEXT PRIMARY KEY, client TEXT, platform TEXT NOT NULL, locale TEXT,
                environment TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL);
            CREATE TABLE badge_tags (tag TEXT PRIMARY KEY, added_at INTEGER NOT NULL);
            CREATE TABLE relay_registrations (
                relay_url TEXT NOT NULL, token TEXT NOT NULL, kind TEXT NOT NULL, registered_at INTEGER NOT NULL,
                PRIMARY KEY (relay_url, token, kind));
            """),
        Migration(version: 2, sql: """
            CREATE TABLE live_activity_tokens (
                token TEXT PRIMARY KEY, activity_id TEXT, session_id TEXT, client TEXT,
                snapshot TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL);
            CREATE TABLE event_versions (id TEXT PRIMARY KEY, version INTEGER NOT NULL);
            """),
        // Live Activity engine: the APNs environment per token, and a revision that every change to
        // live_activity_tokens raises (whichever connection makes it), so the engine's in-memory copy
        // is checked with one read per refresh tick.
        Migration(version: 3, sql: """
            ALTER TABLE live_activity_tokens ADD COLUMN environment TEXT NOT NULL DEFAULT 'production';
            CREATE TABLE live_activity_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
            INSERT INTO live_activity_revision (id, revision) VALUES (1, 0);
            CREATE TRIGGER live_activity_tokens_inserted AFTER INSERT ON live_activity_tokens
                BEGIN UPDATE live_activity_revision SET revision = revision + 1 WHERE id = 1; END;
            CREATE TRIGGER live_activity_tokens_updated AFTER UPDATE ON live_activity_tokens
                BEGIN UPDATE live_activity_revision SET revision = revision + 1 WHERE id = 1; END;
            CREATE TRIGGER live_activity_tokens_deleted AFTER DELETE ON live_activity_tokens
                BEGIN UPDATE live_activity_revision SET revision = revision + 1 WHERE id = 1; END;
            """),
    ]
}
