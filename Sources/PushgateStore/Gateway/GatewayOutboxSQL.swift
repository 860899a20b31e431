/// The statements behind the outbox rules (``GatewayTables``), the same on SQLite and PostgreSQL.
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
