import PushgateCore

/// The badge set (host.md §4): answered from memory, written to `badge_tags` behind the
/// events (docs/host.md, "Store").
extension HostStore {
    /// Adds `tag` to the badge set and returns the set's size.
    public func addBadgeTag(_ tag: String) throws -> Int {
        try addToBadge(tag)
        return badge.count
    }

    /// The start of an alert round: the iOS alert tokens, and the badge after adding `tag` —
    /// added only when there is a tag (a transport) and a token to push to.
    public func beginAlertRound(tag: String?) throws -> (tokens: [AlertToken], badge: Int) {
        let tokens = try iosAlertTokens()
        if let tag, !tokens.isEmpty { try addToBadge(tag) }
        return (tokens, badge.count)
    }

    /// The badge set's size.
    public func badgeCount() throws -> Int { badge.count }

    /// Empties the badge set, with the tags still waiting for their write.
    public func clearBadge() throws {
        try connection.execute("DELETE FROM badge_tags")
        badge.removeAll()
        badgeWrite?.cancel()
        badgeWrite = nil
    }

    /// Writes the tags still waiting, and from then on each new tag at once (at shutdown).
    public func finishWritingBehind() throws {
        writeBehind = nil
        try writeUnwrittenTags()
    }

    /// The task of the scheduled badge write that last came due (for tests to wait on).
    nonisolated var scheduledBadgeWrite: Task<Void, Never>? { badgeWriteTask.withLock { $0 } }

    private func iosAlertTokens() throws -> [AlertToken] {
        let now = clock.nowMilliseconds
        if let cached = iosTokens, now >= cached.readAtMs, now - cached.readAtMs < Self.alertTokenCacheMs { return cached.tokens }
        let tokens = try alertTokens().filter { $0.platform == "ios" }
        iosTokens = (now, tokens)
        return tokens
    }

    /// Writing behind, a new tag is written at once when the last write is older than
    /// ``badgeWriteDelayMs`` (or the clock went back), else by the write scheduled for then; it
    /// counts even while its write fails (the pushes go on). Writing through, a failed write
    /// throws and the tag does not count.
    private func addToBadge(_ tag: String) throws {
        let now = clock.nowMilliseconds
        guard badge.insert(tag, atMs: now) else { return }
        guard let scheduler = writeBehind else {
            do {
                try writeUnwrittenTags()
            } catch {
                badge.remove(tag)
                throw error
            }
            return
        }
        if let last = lastBadgeWriteMs, now >= last, now - last < Self.badgeWriteDelayMs {
            if badgeWrite == nil { scheduleBadgeWrite(scheduler, afterMs: last + Self.badgeWriteDelayMs - now) }
        } else {
            writeOrRetry(scheduler)
        }
    }

    private func scheduleBadgeWrite(_ scheduler: any Scheduler, afterMs delayMs: Int64) {
        badgeWrite = scheduler.schedule(afterMs: delayMs) { [weak self] in
            guard let self else { return }
            badgeWriteTask.withLock { $0 = Task { await self.runScheduledBadgeWrite() } }
        }
    }

    private func runScheduledBadgeWrite() {
        if let scheduler = writeBehind { writeOrRetry(scheduler) }
    }

    /// A failed write keeps its tags and is tried again after the delay; the first failure of
    /// a run, and the write that ends it, are logged.
    private func writeOrRetry(_ scheduler: any Scheduler) {
        do {
            try writeUnwrittenTags()
            if badgeWriteFailing {
                badgeWriteFailing = false
                logger?.info("the badge set is written again")
            }
        } catch {
            if !badgeWriteFailing {
                badgeWriteFailing = true
                logger?.error("the badge set could not be written; tried again every \(Self.badgeWriteDelayMs) ms, "
                              + "a restart before it is written shows a smaller badge", ["error": "\(error)"])
            }
            if badgeWrite == nil { scheduleBadgeWrite(scheduler, afterMs: Self.badgeWriteDelayMs) }
        }
    }

    /// Writes the tags not yet in `badge_tags`; on failure they wait for the next write.
    private func writeUnwrittenTags() throws {
        badgeWrite?.cancel()
        badgeWrite = nil
        let unwritten = badge.takeUnwritten()
        guard !unwritten.isEmpty else { return }
        do {
            try connection.transaction(.immediate) {
                for entry in unwritten {
                    try connection.withStatement("INSERT OR IGNORE INTO badge_tags (tag, added_at) VALUES (?, ?)") { statement in
                        try statement.bind(entry.tag, at: 1)
                        try statement.bind(entry.addedAtMs, at: 2)
                        try statement.step()
                    }
                }
            }
            lastBadgeWriteMs = clock.nowMilliseconds
        } catch {
            badge.restore(unwritten)
            throw error
        }
    }
}
