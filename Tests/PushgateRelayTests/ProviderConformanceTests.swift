import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateTesting
import PushgateTestSupport

/// Provider answers and what the relay makes of them (docs/relay.md "Send results"), against the fake APNs.
@Suite(.hangLimit(.minutes(1))) struct ProviderConformanceTests {
    @Test func providerAnswersMapToResultsAndGoneTokensLoseEveryBinding() async throws {
        let harness = try await RelayHarness(settings: ["REGISTER_LIMIT_PER_MINUTE": "1000"])
        let hostA = harness.host(), hostB = harness.host()
        // Script, ok, drop, the row's reason, and whether host B still delivers afterwards.
        let cases: [(ScriptedResponse?, Bool, Bool, String?, Bool)] = [
            (nil, true, false, nil, true),
            (ScriptedResponse(status: 410, reason: .unregistered), false, true, "dead", false),
            (ScriptedResponse(status: 400, reason: .badDeviceToken), false, true, "dead", true),
            (ScriptedResponse(status: 400, reason: .unregistered), false, true, "dead", false),
            (ScriptedResponse(status: 400, reason: .deviceTokenNotForTopic), false, true, "dead", true),
            (ScriptedResponse(status: 429, reason: .tooManyRequests), false, false, "transient", true),
            (ScriptedResponse(status: 500, reason: .internalServerError), false, false, "transient", true),
            (ScriptedResponse(status: 503, reason: .serviceUnavailable), false, false, "transient", true),
        ]
        var tokens: [String] = []
        for (script, _, _, _, _) in cases {
            let token = TestToken.make()
            tokens.append(token)
            _ = try await hostA.registerToken(token)
            _ = try await hostB.registerToken(token)
            harness.fake.script(token: token, script)
        }
        let reply = try await hostA.send(tokens: tokens, title: "t")
        #expect(reply.results.map(\.ok) == cases.map(\.1))
        #expect(reply.results.map(\.drop) == cases.map(\.2))
        #expect(!String(decoding: reply.body, as: UTF8.self).contains("\"drop\":false"))
        let reasons = try JSONValue.parse(reply.body)["results"]?.arrayValue?.map { $0["reason"]?.stringValue }
        #expect(reasons == cases.map(\.3))
        // A gone token (410, Unregistered) is gone for host B too; BadDeviceToken and
        // DeviceTokenNotForTopic cost only the sender its binding; transient ones stay bound.
        harness.fake.clearScripts()
        let after = try await hostB.send(tokens: tokens, title: "t")
        #expect(after.results.map(\.ok) == cases.map(\.4))
        #expect(await harness.stopAndFindLeaks().isEmpty)
    }

    @Test func timeoutAndResetAreTransient() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let slow = TestToken.make()
        _ = try await host.registerToken(slow)
        harness.fake.script(token: slow, .success(afterMilliseconds: 2_000))
        let pending = Task { try await host.send(tokens: [slow], title: "t") }
        // Once the fake holds the request, move the shared clock past the 5 s deadline.
        try await harness.fake.waitForRequests(1)
        harness.clock.advance(milliseconds: 5_001)
        let timedOut = try await pending.value
        #expect(timedOut.results.map(\.ok) == [false] && timedOut.results.map(\.drop) == [false])
        harness.fake.clearScripts()
        harness.fake.dropConnections(afterStreams: 0)
        let reset = try await harness.advancingClock { try await host.send(tokens: [slow], title: "t") }
        #expect(reset.results.map(\.drop) == [false])
        harness.fake.dropConnections(afterStreams: nil)
        let kept = try await harness.advancingClock { try await host.send(tokens: [slow], title: "t") }
        #expect(kept.results.map(\.ok) == [true], "binding kept")
        await harness.stop()
    }

    @Test func expiredProviderTokenRenewsOnceAndRetriesOnce() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        #expect(try await host.send(tokens: [token], title: "warm").results.map(\.ok) == [true])
        // 21 minutes on, the fake says the token expired once; the relay renews and retries.
        harness.clock.advance(milliseconds: 21 * 60_000)
        harness.fake.script(token: token, ScriptedResponse(status: 403, reason: .expiredProviderToken))
        let fake = harness.fake
        harness.onFakeRequest.set { _ in fake.clearScripts() }
        let retried = try await host.send(tokens: [token], title: "retry")
        #expect(retried.results.map(\.ok) == [true])
        let jwts = harness.received(token).compactMap { $0.header("authorization") }
        #expect(jwts.count == 3 && Set(jwts).count == 2, "one renewal, one retry")
        await harness.stop()
    }

    @Test func twiceExpiredIsTransient() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        harness.clock.advance(milliseconds: 21 * 60_000)
        harness.fake.script(token: token, ScriptedResponse(status: 403, reason: .expiredProviderToken))
        let reply = try await host.send(tokens: [token], title: "t")
        #expect(reply.results.map(\.ok) == [false] && reply.results.map(\.drop) == [false])
        #expect(harness.received(token).count == 2, "one try and exactly one retry")
        await harness.stop()
    }

    @Test func oneProviderTokenFor50MinutesThenRenewedAndNeverTwiceIn20() async throws {
        let harness = try await RelayHarness(settings: ["SERVER_SEND_LIMIT_PER_MINUTE": "1000", "SEND_LIMIT_PER_MINUTE": "1000"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        _ = try await host.send(tokens: [token], title: "t")
        for _ in 0..<5 {
            harness.clock.advance(milliseconds: 9 * 60_000)
            _ = try await host.send(tokens: [token], title: "t")
        }
        #expect(Set(harness.received(token).compactMap { $0.header("authorization") }).count == 1, "45 minutes, one JWT")
        harness.clock.advance(milliseconds: 6 * 60_000)
        _ = try await host.send(tokens: [token], title: "t")
        #expect(Set(harness.received(token).compactMap { $0.header("authorization") }).count == 2, "renewed after 50 minutes")
        // An ExpiredProviderToken 5 minutes after that renewal does not renew again (20-minute floor).
        harness.clock.advance(milliseconds: 5 * 60_000)
        harness.fake.script(token: token, ScriptedResponse(status: 403, reason: .expiredProviderToken))
        _ = try await host.send(tokens: [token], title: "t")
        #expect(Set(harness.received(token).compactMap { $0.header("authorization") }).count == 2, "no renewal within 20 minutes")
        await harness.stop()
    }

    @Test func inFlightLimiterBoundsConcurrentProviderRequests() async throws {
        let harness = try await RelayHarness(settings: ["MAX_IN_FLIGHT": "4"])
        let host = harness.host()
        let tokens = (0..<8).map { _ in TestToken.make() }
        for token in tokens {
            _ = try await host.registerToken(token)
            harness.fake.script(token: token, .success(afterMilliseconds: 200))
        }
        let reply = try await host.send(tokens: tokens, title: "t")
        #expect(reply.results.allSatisfy { $0.ok })
        #expect(harness.fake.counters.maxConcurrentStreamsSeen <= 4)
        #expect(harness.fake.counters.maxConcurrentStreamsSeen >= 2)
        // The limit is exported beside the count, for the saturation alert (docs/monitoring/alerts.yml).
        let metrics = try await harness.metrics()
        #expect(metrics.contains("\npushgate_relay_in_flight_limit 4\n") && metrics.contains("\npushgate_relay_in_flight 0\n"), "\(metrics)")
        await harness.stop()
    }

    @Test func alertPayloadAndHeadersAreExact() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        _ = try await host.send(tokens: [token], title: "Ready", body: "main", badge: 3, collapseId: "ready-s1",
                                data: [("sessionId", "s1")])
        let request = try #require(harness.received(token).last)
        #expect(request.payload == ["aps": ["alert": ["title": "Ready", "body": "main"], "sound": "default",
                                            "mutable-content": 1, "badge": 3, "thread-id": "ready-s1"], "sessionId": "s1"])
        #expect(request.header("apns-topic") == RelayHarness.bundleId)
        #expect(request.header("apns-push-type") == "alert" && request.header("apns-priority") == "10")
        #expect(request.header("apns-collapse-id") == "ready-s1")
        // APNS_TTL_SECONDS defaults to an hour: APNs keeps trying an offline phone that long.
        #expect(request.header("apns-expiration") == String(harness.clock.nowMilliseconds / 1_000 + 3_600))
        _ = try await host.send(tokens: [token], title: "Plain")
        let plain = try #require(harness.received(token).last)
        #expect(plain.header("apns-collapse-id") == nil)
        #expect(plain.payload == ["aps": ["alert": ["title": "Plain"], "sound": "default", "mutable-content": 1]])
        let large = try await host.send(tokens: [token], title: "t", body: String(repeating: "b", count: 1_000),
                                        data: (0..<16).map { ("k\($0)", String(repeating: "v", count: 120)) })
        #expect(large.status == 200, "under 4096 bytes")
        await harness.stop()
    }

    @Test func liveActivityPayloadHeadersAndEndUnbinds() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerLiveActivityToken(token)
        let now = harness.clock.nowSeconds
        let update = try LiveActivityPush(tokens: [token], event: .update, contentState: LiveActivityContentState(
            status: .working, eventVersion: 5, updatedAt: now), staleDate: Int64(now) + 1200)
        #expect(try await host.liveActivity(update, priority: 5).results.map(\.ok) == [true])
        let sent = try #require(harness.received(token).last)
        #expect(sent.header("apns-topic") == RelayHarness.bundleId + ".push-type.liveactivity")
        #expect(sent.header("apns-push-type") == "liveactivity" && sent.header("apns-priority") == "5")
        #expect(sent.header("apns-collapse-id") == nil)
        #expect(sent.payload == ["aps": ["timestamp": .integer(Int64(now)), "event": "update",
                                         "content-state": .object(update.contentState.json), "stale-date": .integer(Int64(now) + 1200)]])
        let end = try LiveActivityPush(tokens: [token], event: .end, contentState: LiveActivityContentState(
            status: .complete, eventVersion: 6, updatedAt: now, endedAt: now), dismissalDate: Int64(now) + 900)
        harness.clock.advance(milliseconds: 1)
        #expect(try await host.liveActivity(end).results.map(\.ok) == [true])
        let ended = try #require(harness.received(token).last)
        #expect(ended.header("apns-priority") == "10")
        #expect(ended.payload?["aps"]?["dismissal-date"] == .integer(Int64(now) + 900) && ended.payload?["aps"]?["stale-date"] == nil)
        harness.clock.advance(milliseconds: 1)
        #expect(try await host.liveActivity(update).results.map(\.ok) == [false], "a successful end unbinds the token")
        await harness.stop()
    }

    @Test func liveActivityRegistrationRulesAndNoSecretsInLogs() async throws {
        let harness = try await RelayHarness()
        let host = harness.host(), other = harness.host()
        let token = TestToken.make()
        var object = try JSONValue.parse(try RelayRequestSigner(key: host.key).liveActivityToken(token, ts: harness.clock.nowMilliseconds)).objectValue!
        object["kind"] = nil
        #expect(try await host.post("register-live-activity-token", JSONValue.object(object).serializedBytes()).status == 400)
        // A signature over the alert message (no kind) does not verify on the Live Activity route.
        var alertSigned = try JSONValue.parse(try RelayRequestSigner(key: host.key).registerToken(token, ts: harness.clock.nowMilliseconds)).objectValue!
        alertSigned["kind"] = "liveactivity"
        #expect(try await host.post("register-live-activity-token", JSONValue.object(alertSigned).serializedBytes()).errorCode == "invalid_signature")
        #expect(try await host.registerLiveActivityToken(token).status == 200)
        #expect(try await other.unregisterLiveActivityToken(token).errorCode == "invalid_signature")
        #expect(try await other.unregisterLiveActivityToken(TestToken.make()).status == 200)
        #expect(try await host.unregisterLiveActivityToken(token).status == 200)
        #expect(await harness.stopAndFindLeaks(extra: [token]).isEmpty)
    }
}
