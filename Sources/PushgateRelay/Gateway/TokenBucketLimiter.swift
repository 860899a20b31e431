import Synchronization

/// One token bucket per key, refilled continuously: `capacity` tokens per `windowMs`.
///
/// Kept in integer units (one token = `windowMs` units, refill = `capacity` units per ms) so
/// "a token back after exactly 2 s" holds without rounding.
///
/// - Important: orca-gateway.md §9 — every request takes one token before its body is read;
///   at most `maxKeys` keys: past that, buckets that refilled to capacity go first, then the
///   least recently updated ones.
final class TokenBucketLimiter: Sendable {
    private struct Bucket {
        var units: Int64
        var updatedMs: Int64
    }

    private let capacity: Int64
    private let windowMs: Int64
    private let maxKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(capacity: Int, windowMs: Int64 = 60_000, maxKeys: Int = 10_000) {
        precondition(capacity > 0 && windowMs > 0 && maxKeys > 0)
        self.capacity = Int64(capacity)
        self.windowMs = windowMs
        self.maxKeys = maxKeys
    }

    private var fullUnits: Int64 { capacity * windowMs }

    /// Takes one token from `key`'s bucket at `nowMs`; `false` when it is empty.
    func take(_ key: String, nowMs: Int64) -> Bool {
        buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= maxKeys { evict(&buckets, nowMs: nowMs) }
            var bucket = buckets[key].map { refilled($0, nowMs: nowMs) } ?? Bucket(units: fullUnits, updatedMs: nowMs)
            let allowed = bucket.units >= windowMs
            if allowed { bucket.units -= windowMs }
            buckets[key] = bucket
            return allowed
        }
    }

    /// The number of keys tracked.
    var trackedKeys: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket, nowMs: Int64) -> Bucket {
        let elapsed = max(0, nowMs - bucket.updatedMs)
        let (gain, overflow) = elapsed.multipliedReportingOverflow(by: capacity)
        let units = overflow ? fullUnits : min(fullUnits, bucket.units + gain)
        return Bucket(units: units, updatedMs: max(nowMs, bucket.updatedMs))
    }

    /// Drops buckets that are full again; if that frees nothing, the least recently updated tenth.
    private func evict(_ buckets: inout [String: Bucket], nowMs: Int64) {
        buckets = buckets.filter { refilled($0.value, nowMs: nowMs).units < fullUnits }
        guard buckets.count >= maxKeys else { return }
        let oldest = buckets.sorted { $0.value.updatedMs < $1.value.updatedMs }.prefix(max(1, maxKeys / 10))
        for (key, _) in oldest { buckets[key] = nil }
    }
}
