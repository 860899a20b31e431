import PushgateCore
import PushgateStore
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

    @Test func aFullKeyTableForgetsTheLeastRecentlyUsedKeyInsteadOfRefusingANewcomer() {
        let limiter = RateLimiter(limit: 1, maxKeys: 2)
        #expect(limiter.allow("a", nowMs: 0))
        #expect(limiter.allow("b", nowMs: 1))
        #expect(limiter.allow("c", nowMs: 500), "a newcomer is never locked out")
        #expect(limiter.trackedKeys == 2)
        #expect(!limiter.allow("b", nowMs: 501), "b is still tracked and spent")
        #expect(limiter.allow("a", nowMs: 502), "a was forgotten, so it starts afresh")
    }

    /// A key holds the requests of one window, not `limit` of them: under a steady rate far
    /// below a high limit its memory stays at that rate's window, and the budget stays exact
    /// across growing and shrinking.
    @Test func aKeyHoldsOneWindowOfRequestsAndTheBudgetStaysExact() {
        let limiter = RateLimiter(limit: 1_000_000, windowMs: 1_000)
        for ms in stride(from: Int64(0), to: 600_000, by: 10) { #expect(limiter.allow("steady", nowMs: ms)) }
        let held = limiter.heldTimes(of: "steady")
        #expect(held.times == 100, "one second at 100 a second")
        #expect(held.room <= 256, "room for about one window, not for the limit: \(held.room)")

        let small = RateLimiter(limit: 50, windowMs: 1_000)
        for ms in Int64(0)..<50 { #expect(small.allow("k", nowMs: ms)) }
        #expect(!small.allow("k", nowMs: 999), "the fifty are all inside the window")
        #expect(small.allow("k", nowMs: 1_000), "the first left the window")
        #expect(!small.allow("k", nowMs: 1_000))
        #expect(small.allow("k", nowMs: 5_000), "after a quiet spell the key starts afresh")
        #expect(small.heldTimes(of: "k").times == 1)
        #expect(small.heldTimes(of: "k").room == 8, "the room shrank with the window")
        for ms in Int64(5_001)..<5_049 { #expect(small.allow("k", nowMs: ms)) }
        #expect(small.allow("k", nowMs: 5_049))
        #expect(!small.allow("k", nowMs: 5_050), "fifty again, across the buffer's wrap and growth")
    }

    /// A client held at its limit keeps asking: it is in use, so an idle key goes before it.
    @Test func aClientRefusedAtItsLimitIsRecentlyUsedToo() {
        let limiter = RateLimiter(limit: 1, maxKeys: 2)
        #expect(limiter.allow("busy", nowMs: 0))
        #expect(limiter.allow("idle", nowMs: 1))
        #expect(!limiter.allow("busy", nowMs: 2), "refused, but seen")
        #expect(limiter.allow("newcomer", nowMs: 3))
        #expect(!limiter.allow("busy", nowMs: 4), "busy kept its spent budget: idle was the one forgotten")
    }
}

@Suite struct ReplayKeyTableTests {
    private func key(_ n: Int) -> ReplayDigest { ReplayDigest("key-\(n)") }

    @Test func aKeyIsAReplayUntilItsOwnExpiry() {
        var table = ReplayKeyTable(ceiling: 10)
        #expect(table.insert(key(1), expiresAtMs: 5_000, client: "a", nowMs: 0).outcome == .fresh)
        #expect(table.insert(key(2), expiresAtMs: 1_000, client: "a", nowMs: 0).outcome == .fresh)
        #expect(table.insert(key(1), expiresAtMs: 5_000, client: "b", nowMs: 4_999).outcome == .replay, "any client, any route")
        #expect(table.contains(key(1), nowMs: 4_999) && !table.contains(key(1), nowMs: 5_000))
        #expect(table.count == 1, "key 2 expired and was dropped on the way")
        table.purge(nowMs: 6_000)
        #expect(table.count == 0)
    }

    @Test func atTheCeilingOnlyTheClientHoldingTheMostKeysIsRefused() {
        var table = ReplayKeyTable(ceiling: 4)
        for n in 0 ..< 3 { #expect(table.insert(key(n), expiresAtMs: 10_000, client: "attacker", nowMs: 0).outcome == .fresh) }
        #expect(table.insert(key(3), expiresAtMs: 10_000, client: "host", nowMs: 0).outcome == .fresh)
        #expect(table.insert(key(4), expiresAtMs: 10_000, client: "attacker", nowMs: 1).outcome == .refused)
        let (outcome, evicted) = table.insert(key(5), expiresAtMs: 10_000, client: "host", nowMs: 1)
        #expect(outcome == .fresh && evicted == key(0), "the attacker's oldest key makes room")
        #expect(table.count == 4)
        #expect(table.contains(key(3), nowMs: 1) && table.contains(key(5), nowMs: 1))
    }

    @Test func theTopHolderIsFoundAgainAfterItsKeysExpire() {
        var table = ReplayKeyTable(ceiling: 3)
        for n in 0 ..< 2 { _ = table.insert(key(n), expiresAtMs: 1_000, client: "early", nowMs: 0) }
        _ = table.insert(key(2), expiresAtMs: 60_000, client: "late", nowMs: 0)
        // Later, "early" holds nothing; "late" is the top holder now.
        _ = table.insert(key(3), expiresAtMs: 60_000, client: "late", nowMs: 2_000)
        _ = table.insert(key(4), expiresAtMs: 60_000, client: "other", nowMs: 2_000)
        #expect(table.insert(key(5), expiresAtMs: 60_000, client: "late", nowMs: 2_000 + ReplayKeyTable.topRescanMs).outcome == .refused)
        #expect(table.insert(key(6), expiresAtMs: 60_000, client: "other", nowMs: 2_000 + ReplayKeyTable.topRescanMs).outcome == .fresh)
    }

    @Test func aFloodAtTheCeilingLeavesNoGrowingTrailOfEvictedKeys() {
        var table = ReplayKeyTable(ceiling: 100)
        for n in 0 ..< 60_000 {
            // Keys far from expiry, so only eviction removes them.
            _ = table.insert(key(n), expiresAtMs: 600_000, client: n.isMultiple(of: 2) ? "a" : "b", nowMs: Int64(n / 1_000))
            #expect(table.heldSlots <= 4 * 100 + 8_192 + 2)
        }
        #expect(table.count == 100)
    }

    @Test func aForgottenKeyMayBeRecordedAgain() {
        var table = ReplayKeyTable(ceiling: 2)
        _ = table.insert(key(1), expiresAtMs: 1_000, client: "a", nowMs: 0)
        table.forget(key(1))
        #expect(table.insert(key(1), expiresAtMs: 1_000, client: "a", nowMs: 0).outcome == .fresh)
        #expect(table.count == 1)
    }
}

@Suite struct RegisterSuffixTests {
    @Test func theSuffixesAreThoseOfEveryRegisterMessage() {
        #expect(RegisterRequest.signedSuffixes == ["ios", "ios.unregister", "android", "android.unregister", "ios.liveactivity",
                                                   "ios.liveactivity.start"])
    }

    @Test func aSendRefusesTheRegisterSuffixesAndBackground() {
        #expect(SendRequest.otherRoutesSuffixes == RegisterRequest.signedSuffixes + ["background"])
    }

    /// Every other signed message ends with its fixed suffix, a number, nothing, or a JSON
    /// array, never with `.background`, even when a token or title ends so (docs/security.md, M3).
    @Test func noOtherRoutesMessageEndsAsABackgroundMessage() throws {
        let token = "R.background"
        var messages = ["ios", "android"].flatMap { platform in
            [SignedMessage.registerToken(ts: 1, token: token, platform: platform),
             SignedMessage.unregisterToken(ts: 1, token: token, platform: platform)]
        } + [SignedMessage.liveActivityToken(ts: 1, token: token), SignedMessage.liveActivityStartToken(ts: 1, token: token)]
        for (title, staleDate) in [(String?.none, Int64?.none), (nil, 1_700_000_000), ("x.background", nil)] {
            let state = try LiveActivityContentState(status: .working, eventVersion: 1, updatedAt: 1, title: title)
            messages.append(SignedMessage.liveActivity(ts: 1, push: try LiveActivityPush(tokens: [token], event: .update,
                                                                                         contentState: state, staleDate: staleDate)))
        }
        for message in messages { #expect(!message.hasSuffix("." + BackgroundRequest.signedSuffix), "\(message)") }
        #expect(SignedMessage.background(ts: 1, tokens: [token]).hasSuffix(".background"))
    }
}

@Suite struct ReplaySetClaimTests {
    @Test func aClaimedKeyIsAReplayForOtherCopiesUntilReleasedAndRecordedForGood() async throws {
        let set = ReplaySet(ceiling: 10, logger: Logger(component: "test", minimumLevel: .error), nowMs: 0)
        let key = ReplayDigest("serverid.1.sig")
        #expect(try await set.claim(key, nowMs: 0))
        #expect(try await !set.claim(key, nowMs: 0), "a copy arriving meanwhile")
        set.release(key)
        #expect(try await set.claim(key, nowMs: 0), "a refused request may come again")
        #expect(try await set.record(key, expiresAtMs: 1_000, client: "c", nowMs: 0) == .fresh)
        #expect(try await !set.claim(key, nowMs: 999))
        #expect(try await set.claim(key, nowMs: 1_000), "expired")
    }
}

@Suite struct InFlightLimiterTests {
    @Test func boundsRunningAndRefusesBeyondTheWaitingRoom() async {
        let gate = InFlightLimiter(limit: 2)
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
        await gate.waitForWaiting(atLeast: 2)
        #expect(await gate.withPermit { true } == nil)
        for _ in 0..<4 { release.continuation.yield() }
        for holder in holders { #expect(await holder.value == true) }
        #expect(gate.inFlight == 0)
    }
}
