/// The statements behind ``BindingRules``, named so tests can check every query plan.
///
/// Parameters: `?1` token, `?2` kind, `?3` serverId, `?4` time, unless a statement says otherwise.
/// Each one reaches rows through a primary key or an index: a point lookup, the ≤ 17 rows of one
/// token, or a bounded range, so no write slows down as the tables grow.
enum BindingSQL {
    static let refresh = "UPDATE bindings SET registered_at = ?4 WHERE token = ?1 AND kind = ?2 AND server_id = ?3"
    static let insert = "INSERT INTO bindings (token, kind, server_id, registered_at) VALUES (?1, ?2, ?3, ?4)"
    static let countBindings = "SELECT count(*) FROM bindings WHERE token = ?1 AND kind = ?2"
    /// The least recently refreshed binding of a token as `registered_at server_id`; ties fall
    /// to the smaller serverId.
    static let oldest = """
        SELECT registered_at || ' ' || server_id FROM bindings WHERE token = ?1 AND kind = ?2
        ORDER BY registered_at, server_id LIMIT 1
        """
    static let deleteBinding = "DELETE FROM bindings WHERE token = ?1 AND kind = ?2 AND server_id = ?3"
    static let serversOfToken = "SELECT server_id FROM bindings WHERE token = ?1 AND kind = ?2"
    static let deleteToken = "DELETE FROM bindings WHERE token = ?1 AND kind = ?2"
    static let readTokenCount = "SELECT tokens FROM token_count WHERE id = 1"
    /// `?1` is the change.
    static let adjustTokenCount = "UPDATE token_count SET tokens = tokens + ?1 WHERE id = 1"
    /// Counts one more token while fewer than `?1` exist: one statement for the check and the
    /// count (one round trip on PostgreSQL); changes no row at the limit.
    static let countNewToken = "UPDATE token_count SET tokens = tokens + 1 WHERE id = 1 AND tokens < ?1"

    /// Counts one more token for serverId `?1` while it holds fewer than `?2`; changes no row at
    /// the quota.
    static let countHostToken = """
        INSERT INTO host_token_count (server_id, tokens) VALUES (?1, 1)
        ON CONFLICT (server_id) DO UPDATE SET tokens = host_token_count.tokens + 1 WHERE host_token_count.tokens < ?2
        """
    /// `?1` serverId.
    static let uncountHostToken = "UPDATE host_token_count SET tokens = tokens - 1 WHERE server_id = ?1"
    /// `?1` serverId: a host with no token left keeps no row.
    static let dropIdleHost = "DELETE FROM host_token_count WHERE server_id = ?1 AND tokens = 0"

    /// New hosts of a token since `?3`.
    static let recentAdmissions = "SELECT count(*) FROM binding_admissions WHERE token = ?1 AND kind = ?2 AND admitted_at >= ?3"
    static let admit = "INSERT INTO binding_admissions (token, kind, server_id, admitted_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING"
    /// `?1` token: the operator's reset lets new hosts bind it at once.
    static let forgetAdmissions = "DELETE FROM binding_admissions WHERE token = ?1"
    /// `?1` is the oldest time kept.
    static let purgeAdmissions = "DELETE FROM binding_admissions WHERE admitted_at < ?1"

    /// Up to `?4` bindings after the key (`?1`, `?2`, `?3`) in key order, as
    /// `token kind server_id registered_at`: one step of the TTL sweep.
    static let sweep = """
        SELECT token || ' ' || kind || ' ' || server_id || ' ' || registered_at FROM bindings
        WHERE (token, kind, server_id) > (?1, ?2, ?3) ORDER BY token, kind, server_id LIMIT ?4
        """
    /// Every binding of token `?1`, every kind, as `kind server_id registered_at`.
    static let listToken = "SELECT kind || ' ' || server_id || ' ' || registered_at FROM bindings WHERE token = ?1 ORDER BY kind, server_id"

    /// List sizes of ``lookup(slots:)``: a few fixed sizes keep the statement cache small.
    static let lookupSlots = [8, 32, 128]

    /// Which of `slots` tokens (`?5`…) are bound to serverId `?3` as kind `?1` or `?2` and were
    /// refreshed at or after `?4` (older bindings have outlived the TTL), as `kind token`; unused
    /// slots stay NULL, which matches no token.
    static func lookup(slots: Int) -> String {
        let list = (5 ..< 5 + slots).map { "?\($0)" }.joined(separator: ", ")
        return "SELECT kind || ' ' || token FROM bindings WHERE kind IN (?1, ?2) AND server_id = ?3 AND registered_at >= ?4 AND token IN (\(list))"
    }

    /// Every statement, for query-plan checks.
    static var all: [String] {
        [refresh, insert, countBindings, oldest, deleteBinding, serversOfToken, deleteToken, readTokenCount, adjustTokenCount,
         countNewToken, countHostToken, uncountHostToken, dropIdleHost, recentAdmissions, admit, forgetAdmissions,
         purgeAdmissions,
         sweep, listToken]
            + lookupSlots.map(lookup(slots:))
    }
}
