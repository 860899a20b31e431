/// The statements behind ``GatewayRules``, the same on SQLite and PostgreSQL (`?N` is `$N`
/// there). Each reaches its rows through a primary key or one of the §8 indexes.
enum GatewaySQL {
    static let insertChallenge = """
        INSERT INTO push_challenges (challenge_id, host_fingerprint, host_public_key, secret_hash, transcript, expires_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        """
    static let readChallenge = """
        SELECT host_fingerprint, host_public_key, secret_hash, expires_at, consumed_at
        FROM push_challenges WHERE challenge_id = ?1
        """
    /// `?2` now. Changes no row when a concurrent proof consumed it first.
    static let consumeChallenge = "UPDATE push_challenges SET consumed_at = ?2 WHERE challenge_id = ?1 AND consumed_at IS NULL"
    /// `?1` fingerprint, `?2` public key, `?3` now.
    static let upsertHost = """
        INSERT INTO push_hosts (host_fingerprint, host_public_key, created_at, last_seen_at) VALUES (?1, ?2, ?3, ?3)
        ON CONFLICT (host_fingerprint) DO UPDATE SET host_public_key = excluded.host_public_key,
            last_seen_at = excluded.last_seen_at
        """
    static let deleteHostSessions = "DELETE FROM push_sessions WHERE host_fingerprint = ?1"
    static let insertSession = """
        INSERT INTO push_sessions (token_hash, host_fingerprint, expires_at, created_at) VALUES (?1, ?2, ?3, ?4)
        """
    static let readSession = "SELECT host_fingerprint, expires_at FROM push_sessions WHERE token_hash = ?1"

    static let findDevice = "SELECT registration_id FROM push_devices WHERE host_fingerprint = ?1 AND device_id = ?2"
    /// `?1` id, `?2` platform, `?3` token, `?4` environment, `?5` filter, `?6` now; clears the dead mark.
    static let updateDevice = """
        UPDATE push_devices SET platform = ?2, token = ?3, apns_environment = ?4, filter_json = ?5, updated_at = ?6,
            dead_at = NULL
        WHERE registration_id = ?1
        """
    static let countDevices = "SELECT count(*) FROM push_devices WHERE host_fingerprint = ?1"
    /// `?1` id, `?2` host, `?3` device id, `?4` platform, `?5` token, `?6` environment, `?7` filter, `?8` now.
    static let insertDevice = """
        INSERT INTO push_devices (registration_id, host_fingerprint, device_id, platform, token, apns_environment,
            filter_json, created_at, updated_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
        """
    static let deleteDevice = "DELETE FROM push_devices WHERE registration_id = ?1 AND host_fingerprint = ?2"
    /// Oldest first; rowid orders registrations made in the same millisecond by insertion (on
    /// PostgreSQL an identity column of that name stands in for SQLite's implicit one).
    static let listDevices = """
        SELECT registration_id, device_id, platform, dead_at FROM push_devices
        WHERE host_fingerprint = ?1 ORDER BY created_at, rowid LIMIT ?2
        """
    static let readDevice = """
        SELECT host_fingerprint, platform, token, apns_environment, dead_at
        FROM push_devices WHERE registration_id = ?1
        """
    /// `?1` id, `?2` token, `?3` now.
    static let markDead = "UPDATE push_devices SET dead_at = ?3, updated_at = ?3 WHERE registration_id = ?1 AND token = ?2"

    /// `?2` window start (exclusive).
    static let countHostSends = "SELECT count(*) FROM push_send_log WHERE host_fingerprint = ?1 AND sent_at > ?2"
    static let countRegistrationSends = "SELECT count(*) FROM push_send_log WHERE registration_id = ?1 AND sent_at > ?2"
    static let insertSend = "INSERT INTO push_send_log (send_id, host_fingerprint, registration_id, sent_at) VALUES (?1, ?2, ?3, ?4)"

    /// `?1` cut-off (exclusive) for each prune.
    static let pruneChallenges = "DELETE FROM push_challenges WHERE expires_at < ?1"
    static let pruneSessions = "DELETE FROM push_sessions WHERE expires_at < ?1"
    static let pruneSendLog = "DELETE FROM push_send_log WHERE sent_at < ?1"
    /// Idle hosts (`?1` cut-off of `last_seen_at`, exclusive): their phones and sessions, then the hosts.
    static let pruneIdleHostDevices = """
        DELETE FROM push_devices WHERE host_fingerprint IN (SELECT host_fingerprint FROM push_hosts WHERE last_seen_at < ?1)
        """
    static let pruneIdleHostSessions = """
        DELETE FROM push_sessions WHERE host_fingerprint IN (SELECT host_fingerprint FROM push_hosts WHERE last_seen_at < ?1)
        """
    static let pruneIdleHosts = "DELETE FROM push_hosts WHERE last_seen_at < ?1"

    static let hostExists = "SELECT 1 FROM push_hosts WHERE host_fingerprint = ?1"
    static let countHosts = "SELECT count(*) FROM push_hosts"
}

/// The statements behind the outbox rules (``GatewayRules``), the same on SQLite and PostgreSQL.
/// Each reaches its rows through the primary key or the holder index.
enum GatewayOutboxSQL {
    /// `?1` send id, `?2` registration, `?3` host, `?4` holder, `?5` accepted at, `?6` due at,
    /// then the notification's fields `?7`–`?14`.
    static let insert = """
        INSERT INTO push_outbox (send_id, registration_id, host_fingerprint, holder, accepted_at, due_at, attempts,
            notification_id, notification_seq, notification_epoch, source, agent_state, title, body, worktree_id)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
        """
    /// The holders other than `?1` with rows.
    static let otherHolders = "SELECT DISTINCT holder FROM push_outbox WHERE holder <> ?1"
    /// Moves holder `?2`'s rows to `?1` and returns them; `rowid` orders rows of the same
    /// millisecond by insertion (on PostgreSQL an identity column of that name stands in).
    static let adopt = """
        UPDATE push_outbox SET holder = ?1 WHERE holder = ?2
        RETURNING send_id, registration_id, host_fingerprint, accepted_at, due_at, attempts, notification_id,
            notification_seq, notification_epoch, source, agent_state, title, body, worktree_id, window_id, rowid
        """
    /// Marks row `?1` as part of window `?2` if holder `?3` still holds it, and says so by
    /// returning it: the fence that keeps a relay from sending rows another has taken over.
    static let claim = "UPDATE push_outbox SET window_id = ?2 WHERE send_id = ?1 AND holder = ?3 RETURNING send_id"
    /// `?2` the holder: a row taken over meanwhile is the new holder's.
    static let delete = "DELETE FROM push_outbox WHERE send_id = ?1 AND holder = ?2"
    /// `?2` failed attempts so far, `?3` when the next is due, `?4` the holder.
    static let postpone = "UPDATE push_outbox SET attempts = ?2, due_at = ?3 WHERE send_id = ?1 AND holder = ?4"
}
