import Testing
@testable import PushgateRelay

/// The `/v1/push` buckets (protocol/hapi-push.md §7): continuous refill and the 50 000-key bound.
@Suite struct TokenBucketLimiterTests {
    @Test func takesUpToCapacityThenRefillsContinuously() {
        let limiter = TokenBucketLimiter(capacity: 30, refillPerMinute: 30)
        for _ in 0..<30 { #expect(limiter.take("k", nowMs: 0)) }
        #expect(!limiter.take("k", nowMs: 0))
        #expect(!limiter.take("k", nowMs: 1_999))
        #expect(limiter.take("k", nowMs: 2_000))
        #expect(!limiter.take("k", nowMs: 2_000))
        // A clock that goes back refills nothing.
        #expect(!limiter.take("k", nowMs: 0))
        // A full minute refills the whole bucket, never more.
        for _ in 0..<30 { #expect(limiter.take("k", nowMs: 600_000)) }
        #expect(!limiter.take("k", nowMs: 600_000))
        #expect(limiter.take("other", nowMs: 600_000))
    }

    @Test func whenFullRefilledBucketsGoFirst() {
        let limiter = TokenBucketLimiter(capacity: 2, refillPerMinute: 2, maxKeys: 100)
        for index in 0..<99 { #expect(limiter.take("idle\(index)", nowMs: 0)) }
        #expect(limiter.take("busy", nowMs: 29_000))
        #expect(limiter.take("busy", nowMs: 29_000))
        // At 30 s the idle buckets are full again, the busy one is not: only the idle ones go.
        #expect(limiter.take("new", nowMs: 30_000))
        #expect(limiter.trackedKeys == 2)
        #expect(limiter.take("busy", nowMs: 30_000) == false)
    }

    @Test func thenTheLeastRecentlyUsed() {
        let limiter = TokenBucketLimiter(capacity: 2, refillPerMinute: 2, maxKeys: 100)
        for index in 0..<100 { #expect(limiter.take("k\(index)", nowMs: 0)) }
        #expect(limiter.take("k0", nowMs: 0), "k0 is now the most recently used")
        #expect(limiter.take("new", nowMs: 0))
        #expect(limiter.trackedKeys == 100)
        // k1 was the least recently used: it went and comes back with a full bucket.
        #expect(limiter.take("k1", nowMs: 0) && limiter.take("k1", nowMs: 0))
        #expect(!limiter.take("k0", nowMs: 0))
    }
}
