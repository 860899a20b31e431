import PushgateStore

/// The live replay keys of this relay process, each with the client (IP, or IPv6 /64) whose
/// request it came from, under a ceiling that only the client holding the most keys runs into.
///
/// Keys expire at their own time (the request's `ts` + skew + 1 s); they are kept in buckets
/// per second of expiry, so dropping expired keys costs nothing while none are due.
///
/// - Important: docs/relay.md "Replay set" and docs/security.md (H1): at the ceiling the client
///   holding the most live keys is refused; anyone else's key takes the place of that client's
///   oldest, so the table never grows past the ceiling and never refuses everybody.
struct ReplayKeyTable {
    /// What ``insert(_:expiresAtMs:client:nowMs:)`` did.
    enum Outcome: Equatable {
        case fresh
        /// A live key already.
        case replay
        /// At the ceiling, from the client holding the most keys.
        case refused
    }

    private struct Entry {
        var expiresAtMs: Int64
        var client: String
    }

    /// One client's live keys, oldest first from `head` (entries already gone are skipped lazily).
    private struct Account {
        var count = 0
        var keys: [ReplayDigest] = []
        var head = 0
    }

    /// The client that held the most keys when last looked at.
    private struct Top {
        var client: String
        var count: Int
        var foundAtMs: Int64
    }

    /// How long a found top holder is trusted before the accounts are scanned again.
    static let topRescanMs: Int64 = 100

    let ceiling: Int
    private var entries: [ReplayDigest: Entry] = [:]
    private var buckets: [Int64: [ReplayDigest]] = [:]
    /// The first second whose bucket may still hold keys.
    private var nextBucket: Int64 = .min
    private var accounts: [String: Account] = [:]
    private var top: Top?
    /// Digests held in `buckets` and in the accounts' key lists, live or gone: evicted and
    /// forgotten keys leave theirs behind until ``rebuildIfSparse()`` drops them, so memory
    /// follows the ceiling, not the request rate.
    private(set) var heldSlots = 0

    init(ceiling: Int) {
        precondition(ceiling > 0)
        self.ceiling = ceiling
    }

    var count: Int { entries.count }

    /// Every live key with its expiry (for rewriting the journal).
    var snapshot: [(ReplayDigest, Int64)] { entries.map { ($0.key, $0.value.expiresAtMs) } }

    /// Whether `digest` is a live key at `nowMs`.
    func contains(_ digest: ReplayDigest, nowMs: Int64) -> Bool {
        (entries[digest]?.expiresAtMs ?? .min) > nowMs
    }

    /// Records `digest` for `client` unless it is live already or the ceiling refuses `client`.
    /// `evicted` is the key that made room, which the caller's journal forgets.
    mutating func insert(_ digest: ReplayDigest, expiresAtMs: Int64, client: String,
                         nowMs: Int64) -> (outcome: Outcome, evicted: ReplayDigest?) {
        purge(nowMs: nowMs)
        if contains(digest, nowMs: nowMs) { return (.replay, nil) }
        var evicted: ReplayDigest?
        if entries.count >= ceiling {
            purgeCurrentSecond(nowMs: nowMs)
        }
        if entries.count >= ceiling {
            guard let holder = topHolder(nowMs: nowMs), holder != client else { return (.refused, nil) }
            evicted = evictOldest(of: holder)
            guard evicted != nil else { return (.refused, nil) }
        }
        if let previous = entries[digest] { remove(digest, previous) }  // expired, not yet purged
        entries[digest] = Entry(expiresAtMs: expiresAtMs, client: client)
        buckets[Self.bucket(expiresAtMs), default: []].append(digest)
        heldSlots += 2
        let count = credit(client, digest)
        if let current = top {
            if current.client == client {
                top?.count = count
            } else if count > current.count {
                top = Top(client: client, count: count, foundAtMs: current.foundAtMs)
            }
        }
        rebuildIfSparse()
        return (.fresh, evicted)
    }

    /// Forgets `digest` (its request's work failed, so the same request may come again).
    mutating func forget(_ digest: ReplayDigest) {
        if let entry = entries[digest] { remove(digest, entry) }
    }

    /// Drops the keys of every bucket wholly expired at `nowMs` (a key expired less than a second
    /// ago may stay a little longer; ``contains(_:nowMs:)`` no longer counts it).
    mutating func purge(nowMs: Int64) {
        let due = Self.second(nowMs)
        guard nextBucket <= due else { return }
        // After a long idle spell walking the seconds would cost more than the buckets.
        let seconds = nextBucket == .min || due - nextBucket >= Int64(buckets.count)
            ? buckets.keys.filter { $0 <= due }.sorted() : Array(nextBucket ... due)
        for second in seconds {
            guard let digests = buckets.removeValue(forKey: second) else { continue }
            heldSlots -= digests.count
            for digest in digests {
                if let entry = entries[digest], Self.bucket(entry.expiresAtMs) == second { remove(digest, entry) }
            }
        }
        nextBucket = due + 1
    }

    /// Drops the expired keys of the one bucket ``purge(nowMs:)`` leaves partly expired, so the
    /// ceiling counts live keys only.
    private mutating func purgeCurrentSecond(nowMs: Int64) {
        let second = Self.second(nowMs) + 1
        guard let digests = buckets[second] else { return }
        var kept: [ReplayDigest] = []
        for digest in digests {
            guard let entry = entries[digest], Self.bucket(entry.expiresAtMs) == second else { continue }
            if entry.expiresAtMs <= nowMs { remove(digest, entry) } else { kept.append(digest) }
        }
        heldSlots -= digests.count - kept.count
        buckets[second] = kept
    }

    /// The whole second at or after `ms`: a bucket's keys have all expired once that second has begun.
    private static func bucket(_ ms: Int64) -> Int64 { second(ms + 999) }

    private static func second(_ ms: Int64) -> Int64 { ms >= 0 ? ms / 1_000 : (ms - 999) / 1_000 }

    private mutating func credit(_ client: String, _ digest: ReplayDigest) -> Int {
        var account = accounts.removeValue(forKey: client) ?? Account()
        // Keys mostly expire oldest first: drop the gone ones at the head as new ones come.
        while account.head < account.keys.count, entries[account.keys[account.head]]?.client != client {
            account.head += 1
            heldSlots -= 1
        }
        if account.head > 64, account.head * 2 > account.keys.count {
            account.keys.removeFirst(account.head)
            account.head = 0
        }
        account.keys.append(digest)
        account.count += 1
        accounts[client] = account
        return account.count
    }

    private mutating func remove(_ digest: ReplayDigest, _ entry: Entry) {
        entries[digest] = nil
        guard var account = accounts[entry.client] else { return }
        account.count -= 1
        accounts[entry.client] = account.count > 0 ? account : nil
        if top?.client == entry.client { top?.count = account.count }
    }

    /// The client holding the most keys, rescanned when the last scan is older than
    /// ``topRescanMs`` (a flood at the ceiling scans at most ten times a second).
    private mutating func topHolder(nowMs: Int64) -> String? {
        if let top, nowMs - top.foundAtMs < Self.topRescanMs, top.count > 0 { return top.client }
        guard let best = accounts.max(by: { $0.value.count < $1.value.count }) else { return nil }
        top = Top(client: best.key, count: best.value.count, foundAtMs: nowMs)
        return best.key
    }

    /// Rebuilds the buckets and the accounts from the live keys once gone keys outnumber them
    /// (amortised: at least twice the live keys were added since the last rebuild). An account
    /// then lists its keys soonest to expire first.
    private mutating func rebuildIfSparse() {
        guard heldSlots > 4 * entries.count + 8_192 else { return }
        buckets = Dictionary(grouping: entries.keys) { Self.bucket(entries[$0]!.expiresAtMs) }
        let byClient = Dictionary(grouping: entries) { $0.value.client }
        accounts = byClient.mapValues { keys in
            Account(count: keys.count, keys: keys.sorted { $0.value.expiresAtMs < $1.value.expiresAtMs }.map(\.key))
        }
        heldSlots = 2 * entries.count
        top = nil
    }

    /// Removes `client`'s oldest live key.
    private mutating func evictOldest(of client: String) -> ReplayDigest? {
        guard var account = accounts[client] else { return nil }
        while account.head < account.keys.count {
            let digest = account.keys[account.head]
            account.head += 1
            heldSlots -= 1
            if let entry = entries[digest], entry.client == client {
                accounts[client] = account
                remove(digest, entry)
                return digest
            }
        }
        accounts[client] = account
        return nil
    }
}
