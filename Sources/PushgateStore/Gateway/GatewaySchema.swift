/// The gateway's tables in the relay database: schema version 2, the outbox (version 4;
/// PostgreSQL's migration 5) and its window ids (version 5; PostgreSQL's migration 6).
///
/// - Important: protocol/gateway.md §8 — the generation-1 DDL as written there (it runs unchanged
///   on SQLite and PostgreSQL). Only hashes of proofs and session tokens are stored.
enum GatewaySchema {
    /// The five tables and their indexes; PostgreSQL's migration runs the same text.
    static let tables = """
        CREATE TABLE push_hosts (
          host_fingerprint TEXT PRIMARY KEY,
          host_public_key  TEXT NOT NULL,
          created_at       BIGINT NOT NULL,
          last_seen_at     BIGINT NOT NULL);

        CREATE TABLE push_challenges (
          challenge_id     TEXT PRIMARY KEY,
          host_fingerprint TEXT NOT NULL,
          host_public_key  TEXT NOT NULL,
          secret_hash      TEXT NOT NULL,
          transcript       TEXT,
          expires_at       BIGINT NOT NULL,
          consumed_at      BIGINT);
        CREATE INDEX push_challenges_expires_at ON push_challenges(expires_at);

        CREATE TABLE push_sessions (
          token_hash       TEXT PRIMARY KEY,
          host_fingerprint TEXT NOT NULL,
          expires_at       BIGINT NOT NULL,
          created_at       BIGINT NOT NULL);
        CREATE INDEX push_sessions_expires_at ON push_sessions(expires_at);
        CREATE INDEX push_sessions_host ON push_sessions(host_fingerprint);

        CREATE TABLE push_devices (
          registration_id  TEXT PRIMARY KEY,
          host_fingerprint TEXT NOT NULL,
          device_id        TEXT NOT NULL,
          platform         TEXT NOT NULL,
          token            TEXT NOT NULL,
          apns_environment TEXT,
          filter_json      TEXT NOT NULL,
          dead_at          BIGINT,
          created_at       BIGINT NOT NULL,
          updated_at       BIGINT NOT NULL);
        CREATE UNIQUE INDEX push_devices_host_device ON push_devices(host_fingerprint, device_id);

        CREATE TABLE push_send_log (
          send_id          TEXT PRIMARY KEY,
          host_fingerprint TEXT NOT NULL,
          registration_id  TEXT NOT NULL,
          sent_at          BIGINT NOT NULL);
        CREATE INDEX push_send_log_host_sent_at ON push_send_log(host_fingerprint, sent_at);
        CREATE INDEX push_send_log_registration_sent_at ON push_send_log(registration_id, sent_at);
        CREATE INDEX push_send_log_sent_at ON push_send_log(sent_at);
        """

    /// Pushgate's outbox (docs/gateway.md "Coalescing and delivery"): every queued notification
    /// with its content until its window is delivered, refused for good, or an hour old.
    /// `holder` is the relay process whose memory holds the window; the rows of one that has
    /// ended are taken over by the next relay to start (or, on PostgreSQL, any relay running).
    static let outbox = """
        CREATE TABLE push_outbox (
          send_id            TEXT PRIMARY KEY,
          registration_id    TEXT NOT NULL,
          host_fingerprint   TEXT NOT NULL,
          holder             BIGINT NOT NULL,
          accepted_at        BIGINT NOT NULL,
          due_at             BIGINT NOT NULL,
          attempts           BIGINT NOT NULL,
          notification_id    TEXT,
          notification_seq   BIGINT NOT NULL,
          notification_epoch TEXT NOT NULL,
          source             TEXT NOT NULL,
          agent_state        TEXT,
          title              TEXT NOT NULL,
          body               TEXT NOT NULL,
          worktree_id        TEXT);
        CREATE INDEX push_outbox_holder ON push_outbox(holder);
        """

    /// The window an outbox row was claimed for before its first send, so that a restart
    /// rebuilds that window as sent and resends the same push (docs/gateway.md "Coalescing and
    /// delivery"); NULL while its window collects.
    static let outboxWindows = "ALTER TABLE push_outbox ADD COLUMN window_id TEXT;"
}
