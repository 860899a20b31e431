import Synchronization

/// "N per rolling 60 s" per key: a request is allowed when fewer than N were allowed in the
/// window that ends now (an exact sliding-window log of the request times inside the window).
///
/// - Important: at most `maxKeys` keys are tracked; when full, keys with no request inside the
///   window go first, then the least recently used: a flood of new keys makes the limiter forget
///   old ones (they come back with a fresh budget), it never locks a newcomer out
///   (docs/security.md, M1).
public final class RateLimiter: Sendable {
    /// The allowed request times of one key that are still inside the window, oldest first
    /// from `head` in a circular buffer, and when the key was last asked for (allowed or not: a
    /// client held at its limit is in use, not idle). Times that leave the window are dropped
    /// and the buffer shrinks with them, so a key holds one window's requests, not `limit` of
    /// them for ever.
    private struct Ring {
        var times: [Int64] = []
        var head = 0
        var count = 0
        var lastSeen: Int64 = .min

        var newest: Int64 { count == 0 ? .min : times[(head + count - 1) % times.count] }
        var oldest: Int64 { count == 0 ? .min : times[head] }

        /// Drops the times at or before `windowStart`; halves the buffer while it is at most a
        /// quarter full.
        mutating func dropTimes(through windowStart: Int64) {
            while count > 0, times[head] <= windowStart {
                head = (head + 1) % times.count
                count -= 1
            }
            if count == 0 { head = 0 }
            while times.count > Self.smallest, count <= times.count / 4 { resize(to: max(Self.smallest, times.count / 2)) }
        }

        /// Appends `time`; the buffer doubles when full, up to `limit`.
        mutating func append(_ time: Int64, limit: Int) {
            if count == times.count { resize(to: min(limit, max(Self.smallest, times.count * 2))) }
            times[(head + count) % times.count] = time
            count += 1
        }

        private static let smallest = 8

        private mutating func resize(to capacity: Int) {
            var resized = [Int64](repeating: 0, count: capacity)
            for offset in 0..<count { resized[offset] = times[(head + offset) % times.count] }
            times = resized
            head = 0
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
    public func allow(_ key: String, nowMs: Int64) -> Bool { waitMs(counting: key, nowMs: nowMs) == nil }

    /// Counts one request for `key` at `nowMs` as ``allow(_:nowMs:)`` does: nil when it is
    /// allowed; when it is over the limit, how long until the oldest request in the window leaves
    /// it (milliseconds, at least 1), for a `Retry-After`.
    public func waitMs(counting key: String, nowMs: Int64) -> Int64? {
        state.withLock { state in
            if state.rings[key] == nil, state.rings.count >= maxKeys { makeRoom(&state, nowMs: nowMs) }
            // Mutating in place through the dictionary's default subscript avoids copying the ring.
            let windowStart = nowMs - windowMs
            let limit = self.limit
            guard let oldest = Self.record(&state.rings[key, default: Ring()], nowMs: nowMs, windowStart: windowStart,
                                           limit: limit) else { return nil }
            return max(1, oldest - windowStart)
        }
    }

    /// nil when `nowMs` was recorded; else the oldest time still in the window, which refused it.
    private static func record(_ ring: inout Ring, nowMs: Int64, windowStart: Int64, limit: Int) -> Int64? {
        ring.lastSeen = nowMs
        ring.dropTimes(through: windowStart)
        // A limit of 0 refuses every request for a whole window.
        if ring.count == limit { return ring.count == 0 ? nowMs : ring.oldest }
        ring.append(nowMs, limit: limit)
        return nil
    }

    /// Forgets keys with no request inside the window; run from the scheduler.
    public func purge(nowMs: Int64) { state.withLock { purge(&$0, nowMs: nowMs) } }

    /// The number of keys currently tracked.
    public var trackedKeys: Int { state.withLock { $0.rings.count } }

    /// The request times kept for `key` and the room allocated for them.
    func heldTimes(of key: String) -> (times: Int, room: Int) {
        state.withLock { state in state.rings[key].map { ($0.count, $0.times.count) } ?? (0, 0) }
    }

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
