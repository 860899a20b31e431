import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateTesting
import Synchronization
import PushgateTestSupport

/// The relay's bounded retries within one request (docs/relay.md "Retries"), against the fake APNs.
@Suite(.hangLimit(.minutes(1))) struct RetryTests {
    /// Answers `token` with `script` until the fake has seen `requests` requests for it, then 200.
    private static func fail(_ harness: RelayHarness, _ token: String, with script: ScriptedResponse, times requests: Int) {
        let fake = harness.fake
        let seen = Mutex(0)
        fake.script(token: token, script)
        harness.onFakeRequest.set { request in
            guard request.deviceToken == token else { return }
            // Runs before this answer is sent, so the next try already finds the new script.
            if seen.withLock({ count in count += 1; return count }) == requests { fake.script(token: token, nil) }
        }
    }

    private static func metrics(_ harness: RelayHarness) async -> String {
        await harness.relay.service.metricsText()
    }

    @Test func unavailableIsRetriedUntilAccepted() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        Self.fail(harness, token, with: ScriptedResponse(status: 503, reason: .serviceUnavailable), times: 2)
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results.map(\.ok) == [true])
        #expect(harness.received(token).map(\.status) == [503, 503, 200])
        #expect(await Self.metrics(harness).contains("pushgate_relay_provider_retries_total{reason=\"ServiceUnavailable\"} 2"))
        await harness.stop()
    }

    @Test func retriesAreBoundedAndTheRowSaysRetryable() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        harness.fake.script(token: token, ScriptedResponse(status: 500, reason: .internalServerError))
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results == [RelayReply.TokenResult(token: token, ok: false, reason: "transient", retryable: true)])
        #expect(harness.received(token).count == 3, "one try and two retries")
        await harness.stop()
    }

    @Test func refusalsAndThrottlesAreLeftToTheHost() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let (refused, throttled, dead) = (TestToken.make(), TestToken.make(), TestToken.make())
        for token in [refused, throttled, dead] { _ = try await host.registerToken(token) }
        harness.fake.script(token: refused, ScriptedResponse(status: 400, reason: .badCollapseId))
        harness.fake.script(token: throttled, ScriptedResponse(status: 429, reason: .tooManyRequests))
        harness.fake.script(token: dead, .unregistered)
        let reply = try await host.send(tokens: [refused, throttled, dead], title: "t")
        #expect(reply.results == [
            RelayReply.TokenResult(token: refused, ok: false, reason: "refused", retryable: false),
            RelayReply.TokenResult(token: throttled, ok: false, reason: "transient", retryable: true),
            RelayReply.TokenResult(token: dead, ok: false, drop: true, reason: "dead", retryable: false),
        ])
        for token in [refused, throttled, dead] { #expect(harness.received(token).count == 1, "no retry") }
        await harness.stop()
    }

    @Test func streamsRefusedAfterGoAwayAreRetriedOnFreshConnections() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let tokens = (0..<4).map { _ in TestToken.make() }
        for token in tokens { _ = try await host.registerToken(token) }
        // Each connection serves its first stream only: of four pushes sent at once, the HTTP/2
        // client's own retry gets the second through, and the relay's retries the others.
        harness.fake.goAway(afterStreams: 1)
        let reply = try await host.send(tokens: tokens, title: "t")
        #expect(reply.results.map(\.ok) == [true, true, true, true])
        #expect(tokens.allSatisfy { harness.received($0).map(\.status) == [200] }, "refused streams were never processed")
        #expect(await Self.metrics(harness).contains("pushgate_relay_provider_retries_total{reason=\"refused\"}"))
        await harness.stop()
    }

    @Test func aConnectionFailureIsRetried() async throws {
        // Nothing listens on port 1: every try fails to connect, so nothing can be sent twice.
        let harness = try await RelayHarness(settings: ["APNS_HOST_PRODUCTION": "127.0.0.1:1"], realDeadlines: true)
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results.map(\.reason) == ["transient"])
        #expect(await Self.metrics(harness).contains("pushgate_relay_provider_retries_total{reason=\"connect_failed\"} 2"))
        await harness.stop()
    }

    /// A push that timed out after it was written may have been delivered: sent again only with a
    /// collapse id, which makes the copy replace the original on the phone. (With the default 8 s
    /// request deadline a 5 s timeout leaves no room for another try: 11 s here.)
    @Test(arguments: [true, false]) func anUnansweredPushIsRetriedOnlyWithACollapseId(collapseId: Bool) async throws {
        let harness = try await RelayHarness(settings: ["REQUEST_DEADLINE_MS": "11000"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        harness.fake.script(token: token, .success(afterMilliseconds: 30_000))
        let pending = Task { try await host.send(tokens: [token], title: "t", collapseId: collapseId ? "ready-s1" : nil) }
        try await harness.fake.waitForRequests(1)
        harness.fake.script(token: token, nil)
        harness.clock.advance(milliseconds: 5_001)  // past the provider deadline of the first try
        let reply = try await pending.value
        if collapseId {
            #expect(reply.results.map(\.ok) == [true])
            #expect(harness.received(token).count == 2)
        } else {
            #expect(reply.results == [RelayReply.TokenResult(token: token, ok: false, reason: "transient", retryable: true)])
            #expect(harness.received(token).count == 1)
        }
        await harness.stop()
    }

    /// A reset stream (not REFUSED_STREAM) was written, so it too is sent again only with a collapse id.
    @Test(arguments: [true, false]) func aResetStreamIsRetriedOnlyWithACollapseId(collapseId: Bool) async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let (warm, token) = (TestToken.make(), TestToken.make())
        for token in [warm, token] { _ = try await host.registerToken(token) }
        harness.fake.resetStreams(every: 2)
        _ = try await host.send(tokens: [warm], title: "the first request is answered")
        let reply = try await host.send(tokens: [token], title: "t", collapseId: collapseId ? "ready-s1" : nil)
        #expect(reply.results.map(\.ok) == [collapseId])
        #expect(harness.received(token).map(\.reset) == (collapseId ? [true, false] : [true]))
        await harness.stop()
    }

    /// A retry starts only while a whole provider deadline (5 s) still fits in REQUEST_DEADLINE_MS,
    /// by the relay's deadline clock (the harness's manual one).
    @Test func aRetryStartsOnlyWhenItCanFinishInTime() async throws {
        let harness = try await RelayHarness(settings: ["REQUEST_DEADLINE_MS": "5500"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        // The first retry starts after at most 150 ms (5.15 s fit in 5.5 s); the second try takes
        // 400 ms, after which another 200–300 ms of back-off and 5 s no longer fit.
        let clock = harness.clock
        let seen = Mutex(0)
        harness.fake.script(token: token, ScriptedResponse(status: 503, reason: .serviceUnavailable))
        harness.onFakeRequest.set { request in
            guard request.deviceToken == token, seen.withLock({ count in count += 1; return count }) == 2 else { return }
            clock.advance(milliseconds: 400)
        }
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results == [RelayReply.TokenResult(token: token, ok: false, reason: "transient", retryable: true)])
        #expect(harness.received(token).count == 2)
        await harness.stop()
    }

    @Test func aTooShortRequestDeadlineMeansNoRetry() async throws {
        let harness = try await RelayHarness(settings: ["REQUEST_DEADLINE_MS": "5000"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        harness.fake.script(token: token, ScriptedResponse(status: 503, reason: .serviceUnavailable))
        _ = try await host.send(tokens: [token], title: "t")
        #expect(harness.received(token).count == 1)
        await harness.stop()
    }

    @Test func theHapiRouteRetriesBothPlatformsAndPassesRetryAfterOn() async throws {
        let harness = try await HapiPushHarness()
        let unavailable = ScriptedResponse(status: 503, reason: .serviceUnavailable)
        let iosToken = TestToken.make()
        harness.apns.script(token: iosToken, sequence: [unavailable, unavailable, ScriptedResponse(status: 200)])
        #expect(try await harness.push(HapiPushHarness.body(token: iosToken)).status == 200)
        #expect(harness.relay.received(iosToken).map(\.status) == [503, 503, 200])

        harness.fcm?.script(token: "fcm-flaky", sequence: [FakeFCMScript(.unavailable), FakeFCMScript(nil)])
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-flaky", collapseId: nil)).status == 200)
        #expect(harness.fcm?.sends.filter { $0.deviceToken == "fcm-flaky" }.map(\.status) == [503, 200])

        // A throttle is not retried here: the caller gets 429 and the provider's Retry-After.
        let throttled = TestToken.make()
        harness.apns.script(token: throttled, ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 2))
        let answer = try await harness.relay.request("POST", "/v1/push", body: HapiPushHarness.body(token: throttled),
                                                     headers: ["content-type": "application/json"])
        #expect(answer.status == 429 && answer.headers["retry-after"] == "2")
        #expect(harness.relay.received(throttled).count == 1)
        await harness.stop()
    }

    @Test func aThrottledRowCarriesTheProvidersRetryAfter() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        harness.fake.script(token: token, ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 2))
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results == [RelayReply.TokenResult(token: token, ok: false, reason: "transient", retryable: true,
                                                         retryAfterSeconds: 2)])
        await harness.stop()
    }

    @Test func aRetryAfterLongerThanTheRequestDeadlineIsPassedOnInsteadOfWaitedFor() async throws {
        let harness = try await HapiPushHarness()
        let unavailable = ScriptedResponse(status: 503, reason: .serviceUnavailable, retryAfterSeconds: 10)
        let host = harness.relay.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        harness.apns.script(token: token, unavailable)
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results == [RelayReply.TokenResult(token: token, ok: false, reason: "transient", retryable: true,
                                                         retryAfterSeconds: 10)])
        let hapiToken = TestToken.make()
        harness.apns.script(token: hapiToken, unavailable)
        let answer = try await harness.relay.request("POST", "/v1/push", body: HapiPushHarness.body(token: hapiToken),
                                                     headers: ["content-type": "application/json"])
        #expect(answer.status == 502 && answer.headers["retry-after"] == "10")
        #expect(harness.relay.received(token).count == 1 && harness.relay.received(hapiToken).count == 1)
        await harness.stop()
    }

    /// FCM messages of the relay carry no collapse key: a send that may have arrived is not sent twice.
    @Test func anUnansweredFCMSendIsNotRetried() async throws {
        let harness = try await HapiPushHarness()
        let fcm = try #require(harness.fcm)
        // An access token first: the exchange would be reset too.
        #expect(try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-warm", collapseId: nil)).status == 200)
        fcm.resetStreams(every: 1)
        let answer = try await harness.push(HapiPushHarness.body(platform: "android", token: "fcm-reset", collapseId: "ready-s1"))
        #expect(answer.status == 502)
        #expect(fcm.sends.filter { $0.deviceToken == "fcm-reset" }.count == 1)
        await harness.stop()
    }

    /// The back-off holds no in-flight permit: with one permit, another push goes out while the
    /// failed one waits for its retry.
    @Test func theBackOffHoldsNoPermit() async throws {
        let harness = try await RelayHarness(settings: ["MAX_IN_FLIGHT": "1"])
        let host = harness.host()
        let (flaky, other) = (TestToken.make(), TestToken.make())
        for token in [flaky, other] { _ = try await host.registerToken(token) }
        harness.fake.script(token: flaky, sequence: [ScriptedResponse(status: 503, reason: .serviceUnavailable), ScriptedResponse(status: 200)])
        let reply = try await host.send(tokens: [flaky, other], title: "t")
        #expect(reply.results.map(\.ok) == [true, true])
        let order = harness.fake.requests.compactMap(\.deviceToken)
        let otherAt = try #require(order.firstIndex(of: other))
        let retryAt = try #require(order.lastIndex(of: flaky))
        #expect(otherAt < retryAt, "the other push did not wait for the retry: \(order)")
        await harness.stop()
    }
}
