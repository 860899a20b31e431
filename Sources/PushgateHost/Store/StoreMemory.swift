import PushgateCore

/// What ``HostStore`` answers an event from without waiting for the database queue: the
/// badge set with its write-behind state, the alert tokens as last read, the relay
/// registration cache. Guarded by a mutex, so the event's own thread reads it; the statements
/// that keep the tables in step run on the queue (docs/host.md, "Store").
struct StoreMemory {
    /// The badge set, read once at open: only this store writes `badge_tags`.
    var badge: BadgeSet
    /// Where a burst of new badge tags waits to share one write; nil (no scheduler, or after
    /// shutdown): each is written at once, and a failed write throws.
    var writeBehind: (any Scheduler)?
    /// When `badge_tags` was last written, or a write of it was started (wall clock).
    var lastBadgeWriteMs: Int64?
    /// The scheduled write of the unwritten tags, while one is due.
    var badgeWrite: (any ScheduledJob)?
    /// The alert tokens as last read, and when: this store's writes drop the copy, and one
    /// older than ``HostStore/alertTokenCacheMs`` is read again, so tokens another process
    /// stores (the import command) are seen within that time.
    var alertTokens: (readAtMs: Int64, tokens: [AlertToken])?
    /// The relay registration cache's rows with their `registered_at`, read once on first use:
    /// only this store writes `relay_registrations`, so an event looks its tokens up without a statement.
    var registrations: [HostStore.Registration: Int64]?

    /// The cached alert tokens, unless they are older than the cache time at `nowMs` (or the
    /// clock went back).
    func alertTokens(atMs nowMs: Int64) -> [AlertToken]? {
        guard let cached = alertTokens, nowMs >= cached.readAtMs, nowMs - cached.readAtMs < HostStore.alertTokenCacheMs else { return nil }
        return cached.tokens
    }

    /// Cancels the scheduled badge write, if one is due.
    mutating func cancelBadgeWrite() {
        badgeWrite?.cancel()
        badgeWrite = nil
    }
}
