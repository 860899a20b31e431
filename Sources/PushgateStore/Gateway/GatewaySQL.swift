/// The statements behind ``GatewayTables``, the same on SQLite and PostgreSQL (`?N` is `$N`
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
