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
