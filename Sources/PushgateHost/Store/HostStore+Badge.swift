import PushgateCore

/// The badge set (docs/host.md, "Store"): answered from memory on the caller's thread, written to
/// `badge_tags` behind the events on the database queue (docs/host.md, "Store").
extension HostStore {
    /// What adding a tag asks of the database queue.
    private enum BadgeWriteStep {
        /// Nothing now: the tag was known, or waits for the scheduled write.
        case none
        /// Write the unwritten tags now; a failure is retried later.
        case writeBehindNow
        /// Write now; a failure throws and the tag does not count.
        case writeThrough
    }

    /// Adds `tag` to the badge set and returns the set's size.
    public nonisolated(nonsending) func addBadgeTag(_ tag: String) async throws -> Int {
        try await addToBadge(tag)
        return memory.withLock { $0.badge.count }
    }

    /// The start of an alert round: the alert tokens of `platforms` (those with a transport),
    /// and the badge after adding `tag` — added only when there is a tag and a token to push to.
    public nonisolated(nonsending) func beginAlertRound(tag: String?, platforms: Set<AlertToken.Platform>) async throws
        -> (tokens: [AlertToken], badge: Int) {
        var tokens = try await cachedAlertTokens()
        if platforms.count < AlertToken.Platform.allCases.count { tokens.removeAll { !platforms.contains($0.platform) } }
        if let tag, !tokens.isEmpty { try await addToBadge(tag) }
        return (tokens, memory.withLock { $0.badge.count })
    }

    /// The badge set's size.
    public nonisolated(nonsending) func badgeCount() async throws -> Int { memory.withLock { $0.badge.count } }

    /// Empties the badge set, with the tags still waiting for their write.
    public func clearBadge() throws {
        try connection.execute("DELETE FROM badge_tags")
        memory.withLock { memory in
            memory.badge.removeAll()
            memory.cancelBadgeWrite()
        }
    }

    /// Writes the tags still waiting, and from then on each new tag at once (at shutdown).
    public func finishWritingBehind() throws {
        memory.withLock { $0.writeBehind = nil }
        try writeUnwrittenTags()
    }

    /// The task of the scheduled badge write that last came due (for tests to wait on).
    nonisolated var scheduledBadgeWrite: Task<Void, Never>? { badgeWriteTask.withLock { $0 } }

    /// The cached alert tokens, read on the queue when the copy is missing or too old.
    private nonisolated(nonsending) func cachedAlertTokens() async throws -> [AlertToken] {
        let now = clock.nowMilliseconds
        if let cached = memory.withLock({ $0.alertTokens(atMs: now) }) { return cached }
        return try await readAlertTokens()
    }

    private func readAlertTokens() throws -> [AlertToken] {
        let now = clock.nowMilliseconds
        let tokens = try alertTokens()
        memory.withLock { $0.alertTokens = (now, tokens) }
        return tokens
    }

    /// Writing behind, a new tag is written at once when the last write is older than
    /// ``badgeWriteDelayMs`` (or the clock went back), else by the write scheduled for then; it
    /// counts even while its write fails (the pushes go on). Writing through, a failed write
    /// throws and the tag does not count.
    private nonisolated(nonsending) func addToBadge(_ tag: String) async throws {
        let now = clock.nowMilliseconds
        let step = memory.withLock { memory -> BadgeWriteStep in
            guard memory.badge.insert(tag, atMs: now) else { return .none }
            guard let scheduler = memory.writeBehind else { return .writeThrough }
            if let last = memory.lastBadgeWriteMs, now >= last, now - last < Self.badgeWriteDelayMs {
                if memory.badgeWrite == nil { memory.badgeWrite = scheduleBadgeWrite(scheduler, afterMs: last + Self.badgeWriteDelayMs - now) }
                return .none
            }
            // Tags that come while this write is under way wait for the scheduled one.
            memory.lastBadgeWriteMs = now
            return .writeBehindNow
        }
        switch step {
        case .none: return
        case .writeBehindNow: await writeOrRetry()
        case .writeThrough: try await writeThrough(tag)
        }
    }

    private nonisolated func scheduleBadgeWrite(_ scheduler: any Scheduler, afterMs delayMs: Int64) -> any ScheduledJob {
        scheduler.schedule(afterMs: delayMs) { [weak self] in
            guard let self else { return }
            badgeWriteTask.withLock { $0 = Task { await self.writeOrRetry() } }
        }
    }

    private func writeThrough(_ tag: String) throws {
        do {
            try writeUnwrittenTags()
        } catch {
            memory.withLock { $0.badge.remove(tag) }
            throw error
        }
    }

    /// A failed write keeps its tags and is tried again after the delay (while writing behind);
    /// the first failure of a run, and the write that ends it, are logged.
    private func writeOrRetry() {
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
            memory.withLock { memory in
                guard let scheduler = memory.writeBehind, memory.badgeWrite == nil else { return }
                memory.badgeWrite = scheduleBadgeWrite(scheduler, afterMs: Self.badgeWriteDelayMs)
            }
        }
    }

    /// Writes the tags not yet in `badge_tags`; on failure they wait for the next write.
    private func writeUnwrittenTags() throws {
        let unwritten = memory.withLock { memory in
            memory.cancelBadgeWrite()
            return memory.badge.takeUnwritten()
        }
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
            let writtenAtMs = clock.nowMilliseconds
            memory.withLock { $0.lastBadgeWriteMs = writtenAtMs }
        } catch {
            memory.withLock { $0.badge.restore(unwritten) }
            throw error
        }
    }
}
