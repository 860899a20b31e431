import PushgateCore
import PushgateStore

/// The prompts the host pushed (`pushed_prompts`), kept 24 h so that a `resolved` event can
/// replace or dismiss them (docs/host.md, "Dismissal").
extension HostStore {
    /// How long a pushed prompt can be resolved, and a resolved one is listed in background dismissals.
    public static let promptMemoryMs: Int64 = 86_400_000

    /// What a `resolved` event resolved.
    public struct Resolution: Sendable {
        /// The prompts resolved by this event (again, on the hub's retry of the same event): each
        /// tag with the request id its prompt was pushed with.
        public var prompts: [(tag: String, requestId: String?)]
        /// The tags resolved in the last 24 h, these included, newest first, at most
        /// `APNsPayload.maxDismissedCollapseIds`: what a background dismissal lists.
        public var recentlyResolved: [String]
        /// The badge once the resolved tags left it.
        public var badge: Int
    }

    /// Notes that a prompt was pushed under `tag` (pushed again: the newest push counts), drops
    /// the outbox alerts still waiting under that tag (an older push, perhaps the replacement of
    /// an earlier prompt, must not land over this one), and forgets prompts older than 24 h.
    public func recordPrompt(tag: String, sessionId: String, requestId: String?) throws {
        let now = clock.nowMilliseconds
        try connection.transaction(.immediate) {
            try dropOutboxAlerts(tag: tag)
            try connection.withStatement("""
                INSERT OR REPLACE INTO pushed_prompts (tag, session_id, request_id, pushed_at) VALUES (?, ?, ?, ?)
                """) { statement in
                try statement.bind(tag, at: 1)
                try statement.bind(sessionId, at: 2)
                try bindOptional(statement, requestId, at: 3)
                try statement.bind(now, at: 4)
                try statement.step()
            }
            try connection.withStatement("DELETE FROM pushed_prompts WHERE max(pushed_at, coalesce(resolved_at, 0)) < ?") { statement in
                try statement.bind(now - Self.promptMemoryMs, at: 1)
                try statement.step()
            }
        }
    }

    /// Forgets the prompt pushed under `tag`, if any: an alert that is no prompt went out under
    /// it (a `goal_complete` after a `goal_blocked`), so nothing there waits for an answer.
    public func forgetPrompt(tag: String) throws {
        try run("DELETE FROM pushed_prompts WHERE tag = ?", tag)
    }

    /// Resolves the session's prompts pushed in the last 24 h and not yet resolved (those of
    /// `requestId` only, when given), or those `eventId` resolved before (the hub's retry): marks
    /// them resolved, drops their outbox alerts and takes their tags out of the badge set, in
    /// one transaction.
    public func resolvePrompts(sessionId: String, requestId: String?, eventId: String) throws -> Resolution {
        let now = clock.nowMilliseconds
        let since = now - Self.promptMemoryMs
        let (prompts, recent) = try connection.transaction(.immediate) { () throws -> ([(tag: String, requestId: String?)], [String]) in
            let prompts = try connection.withStatement("""
                SELECT tag, request_id FROM pushed_prompts WHERE session_id = ?1 AND (?2 IS NULL OR request_id = ?2)
                AND ((resolved_at IS NULL AND pushed_at >= ?3) OR resolved_by = ?4) ORDER BY pushed_at, tag
                """) { statement in
                try statement.bind(sessionId, at: 1)
                try bindOptional(statement, requestId, at: 2)
                try statement.bind(since, at: 3)
                try statement.bind(eventId, at: 4)
                var prompts: [(tag: String, requestId: String?)] = []
                while try statement.step() { prompts.append((statement.string(at: 0) ?? "", statement.string(at: 1))) }
                return prompts
            }
            for (tag, _) in prompts {
                try connection.withStatement("UPDATE pushed_prompts SET resolved_at = ?, resolved_by = ? WHERE tag = ?") { statement in
                    try statement.bind(now, at: 1)
                    try statement.bind(eventId, at: 2)
                    try statement.bind(tag, at: 3)
                    try statement.step()
                }
                try dropOutboxAlerts(tag: tag)
                try run("DELETE FROM badge_tags WHERE tag = ?", tag)
            }
            let recent = try connection.withStatement("""
                SELECT tag FROM pushed_prompts WHERE resolved_at >= ? ORDER BY resolved_at DESC, tag LIMIT ?
                """) { statement in
                try statement.bind(since, at: 1)
                try statement.bind(Int64(APNsPayload.maxDismissedCollapseIds), at: 2)
                var recent: [String] = []
                while try statement.step() { recent.append(statement.string(at: 0) ?? "") }
                return recent
            }
            return (prompts, recent)
        }
        let badge = memory.withLock { memory in
            for (tag, _) in prompts { memory.badge.remove(tag) }
            return memory.badge.count
        }
        return Resolution(prompts: prompts, recentlyResolved: recent, badge: badge)
    }

    /// Deletes the outbox alerts waiting under `tag`; the depth is counted again on next use.
    private func dropOutboxAlerts(tag: String) throws {
        try run("DELETE FROM outbox WHERE kind = 'alert' AND json_extract(message, '$.tag') = ?", tag)
        if connection.changes > 0 { outboxRows = nil }
    }
}
