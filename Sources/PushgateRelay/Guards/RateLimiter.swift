import Synchronization

/// "N per rolling 60 s" per key: a request is allowed when fewer than N were allowed in the
/// window that ends now (an exact sliding-window log of the last N request times).
///
/// - Important: at most `maxKeys` keys are tracked; when full, expired keys are purged first and
///   then new keys are refused (relay-protocol.md §2).
public final class RateLimiter: Sendable {
    /// The last `limit` allowed request times of one key, oldest first from `next`.
    private struct Ring {
        var times: [Int64] = []
        var next = 0

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
        var lastPurgeMs: Int64?
    }

    private let limit: Int
    private let windowMs: Int64
    private let maxKeys: Int
    private let state = Mutex(State())

    /// A limiter allowing `limit` requests per `windowMs` for each key.
    public init(limit: Int, windowMs: Int64 = 60_000, maxKeys: Int = 10_000) {
        self.limit = limit
        self.windowMs = windowMs
        self.maxKeys = maxKeys
    }

    /// Counts one request for `key` at `nowMs`; `false` means over the limit (or no room for a new key).
    public func allow(_ key: String, nowMs: Int64) -> Bool {
        state.withLock { state in
            if state.rings[key] == nil, state.rings.count >= maxKeys {
                // Purging is O(keys); do it at most once a second so a flood of new keys stays cheap.
                if let last = state.lastPurgeMs, nowMs - last < 1_000 { return false }
                state.lastPurgeMs = nowMs
                purge(&state, nowMs: nowMs)
                if state.rings.count >= maxKeys { return false }
            }
            // Mutating in place through the dictionary's default subscript avoids copying the ring.
            let windowStart = nowMs - windowMs
            let limit = self.limit
            return Self.record(&state.rings[key, default: Ring()], nowMs: nowMs, windowStart: windowStart, limit: limit)
        }
    }

    private static func record(_ ring: inout Ring, nowMs: Int64, windowStart: Int64, limit: Int) -> Bool {
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
}
