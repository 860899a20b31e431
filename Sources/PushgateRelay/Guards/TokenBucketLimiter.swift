import Synchronization

/// Token buckets that refill continuously, one per key: a request takes one token or is refused.
///
/// - Important: docs/relay.md (`/v1/push` buckets, `NEW_TOKENS_PER_IP_PER_HOUR`) — at most `maxKeys` keys are tracked; when full,
///   fully refilled buckets are dropped first, then the least recently used.
final class TokenBucketLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedMs: Int64
        /// When the bucket was last used, as a counter of requests (for least-recently-used eviction).
        var lastUse: UInt64
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var uses: UInt64 = 0
    }

    let capacity: Double
    private let refillPerMs: Double
    private let maxKeys: Int
    private let state = Mutex(State())

    /// Keys tracked unless told otherwise (`RATE_LIMIT_MAX_KEYS` shrinks it in tests).
    static let defaultMaxKeys = 50_000

    /// Buckets of `capacity` tokens refilling `refill` tokens every `windowMs`.
    init(capacity: Int, refill: Int, everyMs windowMs: Int64, maxKeys: Int = defaultMaxKeys) {
        self.capacity = Double(capacity)
        refillPerMs = Double(refill) / Double(windowMs)
        self.maxKeys = maxKeys
    }

    /// Buckets of `capacity` tokens refilling `refillPerMinute` tokens a minute.
    convenience init(capacity: Int, refillPerMinute: Int, maxKeys: Int = defaultMaxKeys) {
        self.init(capacity: capacity, refill: refillPerMinute, everyMs: 60_000, maxKeys: maxKeys)
    }

    /// Takes one token from `key`'s bucket at `nowMs`; `false` when it is empty.
    func take(_ key: String, nowMs: Int64) -> Bool {
        state.withLock { state in
            state.uses += 1
            if state.buckets[key] == nil, state.buckets.count >= maxKeys { evict(&state, nowMs: nowMs) }
            let fresh = Bucket(tokens: capacity, updatedMs: nowMs, lastUse: state.uses)
            // Through the default subscript the bucket is changed in place, not copied.
            return take(from: &state.buckets[key, default: fresh], nowMs: nowMs, use: state.uses)
        }
    }

    /// Returns a token taken by ``take(_:nowMs:)`` whose request turned out not to need it.
    func giveBack(_ key: String) {
        state.withLock { state in
            guard let bucket = state.buckets[key] else { return }
            state.buckets[key]?.tokens = min(capacity, bucket.tokens + 1)
        }
    }

    /// The number of keys tracked.
    var trackedKeys: Int { state.withLock { $0.buckets.count } }

    /// Refills `bucket` up to `nowMs` (a clock that went back refills nothing) and takes a token.
    private func take(from bucket: inout Bucket, nowMs: Int64, use: UInt64) -> Bool {
        bucket.tokens = level(bucket, nowMs: nowMs)
        bucket.updatedMs = max(bucket.updatedMs, nowMs)
        bucket.lastUse = use
        guard bucket.tokens >= 1 else { return false }
        bucket.tokens -= 1
        return true
    }

    private func level(_ bucket: Bucket, nowMs: Int64) -> Double {
        min(capacity, bucket.tokens + Double(max(0, nowMs - bucket.updatedMs)) * refillPerMs)
    }

    /// Makes room for new keys: every fully refilled bucket goes; if that frees less than 1 %,
    /// the least recently used go until 1 % is free, so a flood of new keys sorts rarely.
    private func evict(_ state: inout State, nowMs: Int64) {
        state.buckets = state.buckets.filter { level($0.value, nowMs: nowMs) < capacity }
        let target = maxKeys - max(1, maxKeys / 100)
        guard state.buckets.count > target else { return }
        let oldest = state.buckets.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(state.buckets.count - target)
        for (key, _) in oldest { state.buckets[key] = nil }
    }
}
