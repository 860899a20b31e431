import PushgateStore

/// The numbered schema steps of `host.sqlite`.
///
/// - Important: protocol/host-api.md §8 — schema changes only through new numbered migrations.
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
        // protocol/hapi-push.md §5: one row per (namespace, device_id, platform); push_key is the padded base64 or NULL.
        Migration(version: 4, sql: """
            CREATE TABLE hapi_devices (
                namespace TEXT NOT NULL, token TEXT NOT NULL, platform TEXT NOT NULL, device_id TEXT NOT NULL,
                push_key TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                UNIQUE (namespace, device_id, platform));
            CREATE INDEX hapi_devices_namespace ON hapi_devices (namespace);
            CREATE INDEX hapi_devices_token ON hapi_devices (token);
            """),
        // Every event adds a badge tag: one b-tree keyed by the tag instead of a rowid table plus
        // its primary-key index halves the pages (and WAL writes) an event's commit makes.
        Migration(version: 5, sql: """
            CREATE TABLE badge_tags_by_tag (tag TEXT PRIMARY KEY, added_at INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO badge_tags_by_tag (tag, added_at) SELECT tag, added_at FROM badge_tags;
            DROP TABLE badge_tags;
            ALTER TABLE badge_tags_by_tag RENAME TO badge_tags;
            """),
        // docs/host.md "Outbox": the pushes not yet accepted, one row per (token, notification);
        // `message` is what the kind's sender needs to send it again (never hapi plaintext).
        Migration(version: 6, sql: """
            CREATE TABLE outbox (
                id INTEGER PRIMARY KEY, kind TEXT NOT NULL, token TEXT NOT NULL, event_id TEXT NOT NULL,
                message TEXT NOT NULL, created_at INTEGER NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL);
            CREATE INDEX outbox_due ON outbox (next_at);
            """),
        // docs/host.md "Dismissal": the prompts pushed in the last 24 h, so that a `resolved`
        // event finds the tags it replaces; `resolved_by` is the resolving event, whose retry
        // finds the same tags again.
        Migration(version: 7, sql: """
            CREATE TABLE pushed_prompts (
                tag TEXT PRIMARY KEY, session_id TEXT NOT NULL, request_id TEXT, pushed_at INTEGER NOT NULL,
                resolved_at INTEGER, resolved_by TEXT) WITHOUT ROWID;
            CREATE INDEX pushed_prompts_session ON pushed_prompts (session_id);
            """),
        // docs/live-activities.md "Starting by push": one push-to-start token per device (client),
        // and when a start to it was last accepted, so the cooldown survives a restart.
        Migration(version: 8, sql: """
            CREATE TABLE live_activity_start_tokens (
                client TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, environment TEXT NOT NULL,
                created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL, last_started_at INTEGER) WITHOUT ROWID;
            """),
    ]
}
