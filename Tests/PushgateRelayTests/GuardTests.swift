import Testing
@testable import PushgateRelay

@Suite struct RateLimiterTests {
    @Test func sixtyFirstWithinAMinuteIsRefusedAndBudgetReturns() {
        let limiter = RateLimiter(limit: 60)
        for _ in 0..<60 { #expect(limiter.allow("10.0.0.1", nowMs: 0)) }
        #expect(!limiter.allow("10.0.0.1", nowMs: 59_999))
        #expect(limiter.allow("10.0.0.2", nowMs: 0), "keys are independent")
        #expect(limiter.allow("10.0.0.1", nowMs: 60_000))
    }

    @Test func fullKeyTableRefusesNewKeysUntilExpiredOnesArePurged() {
        let limiter = RateLimiter(limit: 1, maxKeys: 2)
        #expect(limiter.allow("a", nowMs: 0))
        #expect(limiter.allow("b", nowMs: 0))
        #expect(!limiter.allow("c", nowMs: 500), "both keys still live")
        #expect(limiter.allow("c", nowMs: 60_001), "expired keys make room")
        #expect(limiter.trackedKeys == 1)
    }
}

@Suite struct ReplaySetTests {
    @Test func seenKeyIsAReplayUntilItExpires() {
        let set = ReplaySet(ttlMs: 1_000, maxEntries: 10)
        #expect(set.record("k", nowMs: 0) == .fresh)
        #expect(set.record("k", nowMs: 999) == .replay)
        #expect(set.record("k", nowMs: 1_000) == .fresh)
    }

    @Test func fullSetRefusesNewKeys() {
        let set = ReplaySet(ttlMs: 1_000, maxEntries: 2)
        #expect(set.record("a", nowMs: 0) == .fresh)
        #expect(set.record("b", nowMs: 1) == .fresh)
        #expect(set.record("c", nowMs: 2) == .full)
        #expect(set.record("a", nowMs: 2) == .replay)
        #expect(set.record("c", nowMs: 1_000) == .fresh, "a expired")
        #expect(set.count == 2)
    }
}

@Suite struct InFlightGateTests {
    @Test func boundsRunningAndRefusesBeyondTheWaitingRoom() async {
        let gate = InFlightGate(limit: 2)
        let release = AsyncStream<Void>.makeStream()
        let started = AsyncStream<Void>.makeStream()
        // Two hold their permits, two wait, the fifth is refused at once.
        let holders = (0..<4).map { _ in
            Task {
                await gate.withPermit {
                    started.continuation.yield()
                    for await _ in release.stream { break }
                    return true
                }
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        #expect(gate.inFlight == 2)
        while gate.waitingCount < 2 { await Task.yield() }
        #expect(await gate.withPermit { true } == nil)
        for _ in 0..<4 { release.continuation.yield() }
        for holder in holders { #expect(await holder.value == true) }
        #expect(gate.inFlight == 0)
    }
}
