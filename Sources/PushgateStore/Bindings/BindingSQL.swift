/// The statements behind ``BindingTables``, named so tests can check every query plan.
///
/// Parameters: `?1` token, `?2` kind, `?3` serverId, `?4` time, unless a statement says otherwise.
/// Each one reaches rows through the primary key (token, kind, server_id): a point lookup or
/// the ≤ 17 rows of one token, so no write slows down as the table grows.
enum BindingSQL {
    static let refresh = "UPDATE bindings SET registered_at = ?4 WHERE token = ?1 AND kind = ?2 AND server_id = ?3"
    static let insert = "INSERT INTO bindings (token, kind, server_id, registered_at) VALUES (?1, ?2, ?3, ?4)"
    static let countBindings = "SELECT count(*) FROM bindings WHERE token = ?1 AND kind = ?2"
    /// `?3` is how many to evict. Ties in registration time fall to the smaller serverId.
    static let evictOldest = """
        DELETE FROM bindings WHERE token = ?1 AND kind = ?2 AND server_id IN (
            SELECT server_id FROM bindings WHERE token = ?1 AND kind = ?2
            ORDER BY registered_at, server_id LIMIT ?3)
        """
    static let deleteBinding = "DELETE FROM bindings WHERE token = ?1 AND kind = ?2 AND server_id = ?3"
    static let deleteToken = "DELETE FROM bindings WHERE token = ?1 AND kind = ?2"
    static let readTokenCount = "SELECT tokens FROM token_count WHERE id = 1"
    /// `?1` is the change.
    static let adjustTokenCount = "UPDATE token_count SET tokens = tokens + ?1 WHERE id = 1"
    /// Counts one more token while fewer than `?1` exist: one statement for the check and the
    /// count (one round trip on PostgreSQL); changes no row at the limit.
    static let countNewToken = "UPDATE token_count SET tokens = tokens + 1 WHERE id = 1 AND tokens < ?1"

    /// List sizes of ``lookup(slots:)``: a few fixed sizes keep the statement cache small.
    static let lookupSlots = [8, 32, 128]

    /// Which of `slots` tokens (`?3`…) are bound to serverId `?2` as kind `?1`; unused slots
    /// stay NULL, which matches no token.
    static func lookup(slots: Int) -> String {
        let list = (3 ..< 3 + slots).map { "?\($0)" }.joined(separator: ", ")
        return "SELECT token FROM bindings WHERE kind = ?1 AND server_id = ?2 AND token IN (\(list))"
    }

    /// Every statement, for query-plan checks.
    static var all: [String] {
        [refresh, insert, countBindings, evictOldest, deleteBinding, deleteToken, readTokenCount, adjustTokenCount, countNewToken]
            + lookupSlots.map(lookup(slots:))
    }
}
