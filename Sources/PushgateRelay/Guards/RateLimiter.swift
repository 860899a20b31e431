import Synchronization

/// "N per rolling 60 s" per key: a request is allowed when fewer than N were allowed in the
/// window that ends now (an exact sliding-window log of the last N request times).
///
/// - Important: at most `maxKeys` keys are tracked; when full, keys with no request inside the
///   window go first, then the least recently used: a flood of new keys makes the limiter forget
///   old ones (they come back with a fresh budget), it never locks a newcomer out
///   (docs/security.md, M1).
public final class RateLimiter: Sendable {
    /// The last `limit` allowed request times of one key, oldest first from `next`, and when it
    /// was last asked for (allowed or not: a client held at its limit is in use, not idle).
    private struct Ring {
        var times: [Int64] = []
        var next = 0
        var lastSeen: Int64 = .min

        var newest: Int64 { times.isEmpty ? .min : times[(next + times.count - 1) % times.count] }

        mutating func append(_ time: Int64, limit: Int) {
            if times.count < limit {
                times.append(time)
            } else {
                times[next] = time
                next = (next + 1) % limit
            }
        }
    }

    private struct State {
        var rings: [String: Ring] = [:]
    }

    private let limit: Int
    private let windowMs: Int64
    private let maxKeys: Int
    private let state = Mutex(State())

    /// Keys tracked unless told otherwise (`RATE_LIMIT_MAX_KEYS` shrinks it in tests).
    public static let defaultMaxKeys = 10_000

    /// A limiter allowing `limit` requests per `windowMs` for each key.
    public init(limit: Int, windowMs: Int64 = 60_000, maxKeys: Int = defaultMaxKeys) {
        self.limit = limit
        self.windowMs = windowMs
        self.maxKeys = maxKeys
    }

    /// Counts one request for `key` at `nowMs`; `false` means over the limit. A new key always
    /// finds room: at `maxKeys` the least recently used keys make way for it.
    public func allow(_ key: String, nowMs: Int64) -> Bool {
        state.withLock { state in
            if state.rings[key] == nil, state.rings.count >= maxKeys { makeRoom(&state, nowMs: nowMs) }
            // Mutating in place through the dictionary's default subscript avoids copying the ring.
            let windowStart = nowMs - windowMs
            let limit = self.limit
            return Self.record(&state.rings[key, default: Ring()], nowMs: nowMs, windowStart: windowStart, limit: limit)
        }
    }

    private static func record(_ ring: inout Ring, nowMs: Int64, windowStart: Int64, limit: Int) -> Bool {
        ring.lastSeen = nowMs
        if ring.times.count == limit, ring.times[ring.next] > windowStart { return false }
        ring.append(nowMs, limit: limit)
        return true
    }

    /// Forgets keys with no request inside the window; run from the scheduler.
    public func purge(nowMs: Int64) { state.withLock { purge(&$0, nowMs: nowMs) } }

    /// The number of keys currently tracked.
    public var trackedKeys: Int { state.withLock { $0.rings.count } }

    private func purge(_ state: inout State, nowMs: Int64) {
        state.rings = state.rings.filter { $0.value.newest > nowMs - windowMs }
    }

    /// Purges, and if that frees less than 1 % drops the least recently used keys until 1 % is
    /// free, so a flood of new keys sorts the table once per hundredth of it.
    private func makeRoom(_ state: inout State, nowMs: Int64) {
        purge(&state, nowMs: nowMs)
        let target = maxKeys - max(1, maxKeys / 100)
        guard state.rings.count > target else { return }
        let oldest = state.rings.sorted { $0.value.lastSeen < $1.value.lastSeen }.prefix(state.rings.count - target)
        for (key, _) in oldest { state.rings[key] = nil }
    }
}
