@testable import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 9–13, 29, 39 and 40 on the whole wire: host → Pushgate relay
/// `POST /v1/push` → fake APNs (iOS lane) and fake FCM (Android lane), every envelope opened
/// with the device's key.
@Suite(.hangLimit(.minutes(1))) struct HapiRelayEndToEndTests {
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var ready: JSONObject { JSONObject([("type", "ready"), ("sessionId", "s1"), ("sessionName", "Demo"), ("agent", "Claude"),
                                               ("agentText", "Done.AGENT_NOTIFY_SUMMARY {\"version\":1,\"summary\":\"S\",\"action\":\"A\"}")]) }

    @Test func bothPlatformsThroughTheRelay() async throws {
        let harness = try await HostHarness(hapi: .relay, android: "relay")
        let fcm = try #require(harness.fakeFCM)
        let iosToken = TestToken.make()
        let iosKey = try #require(try await harness.registerDevice(iosToken.uppercased()))
        let phoneKey = try #require(try await harness.registerDevice("fcm-Token:Case", platform: "phone"))
        let result = try await harness.event(Self.ready)
        #expect(result["accepted"] == 2 && result["nativeDelivered"] == true)
        let expected = try #require(HapiComposer.payload(for: try HostEvent(json: .object(Self.ready))))
        #expect(expected.notifySummary == #"{"version":1,"summary":"S","action":"A"}"#)

        let apns = try #require(harness.apnsRequests(iosToken).first, "the relay lowercased the token")
        #expect(apns.header("apns-push-type") == "alert" && apns.header("apns-priority") == "10")
        // The relay keeps trying an offline phone for E2E_APNS_TTL_SECONDS (an hour), where hapi sends 0.
        #expect(apns.header("apns-expiration") == String(harness.clock.nowMilliseconds / 1_000 + 3_600))
        #expect(apns.header("apns-collapse-id") == "ready-s1")
        #expect(apns.header("apns-topic") == HostHarness.bundleId)
        #expect(try DeviceSide.open(apns, key: iosKey).payload == expected)

        let send = try #require(fcm.sends.first)
        #expect(send.status == 200 && send.deviceToken == "fcm-Token:Case")
        let message = try #require(send.message)
        #expect(message["data"]?["hapi_v"] == "1" && message["notification"] == nil && message["android"]?["collapse_key"] == nil)
        let envelope = try #require(message["data"]?["hapi_e"]?.stringValue)
        #expect(try HapiPayload(plaintext: HapiEnvelope.open(envelope, key: phoneKey)) == expected)
        #expect(harness.leaks([iosToken, "fcm-Token:Case", iosKey.storedForm, envelope, "Claude - Demo"]).isEmpty)
        await harness.stop()
    }

    @Test func deadAnswersPruneAndOtherFailuresKeep() async throws {
        let harness = try await HostHarness(hapi: .relay, android: "relay")
        let fcm = try #require(harness.fakeFCM)
        let apnsDead = TestToken.make(), apnsBusy = TestToken.make()
        try await harness.registerDevice(apnsDead)
        try await harness.registerDevice(apnsBusy)
        try await harness.registerDevice("fcm-dead", platform: "phone")
        try await harness.registerDevice("fcm-slow", platform: "phone")
        harness.fake.script(token: apnsDead, .unregistered)
        harness.fake.script(token: apnsBusy, ScriptedResponse(status: 500, reason: .internalServerError))
        fcm.script(token: "fcm-dead", FakeFCMScript(.unregistered))
        fcm.script(token: "fcm-slow", FakeFCMScript(.quotaExceeded))
        let result = try await harness.event(Self.ready)
        #expect(result["dropped"] == 2 && result["failed"] == 2 && result["nativeDelivered"] == false)
        #expect(Set(try await harness.service.store.hapiDevices(namespace: "default").map(\.token)) == [apnsBusy, "fcm-slow"])
        #expect(harness.web.calls == ["toast", "webPush"])
        await harness.stop()
    }

    @Test func theCapHoldsOnTheRelayLane() async throws {
        let harness = try await HostHarness(hapi: .relay)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let name = String(repeating: "名", count: 300) + String(repeating: "n", count: 100)
        let fits = HapiFallbackTests.readyEvent(name: name, agent: try HapiFallbackTests.agent(forPlaintextBytes: 2372, name: name))
        _ = try await harness.event(HapiFallbackTests.wire(fits))
        let first = try DeviceSide.open(try #require(harness.apnsRequests(token).last), key: key)
        #expect(first.envelope.utf8.count == 3200, "the relay forwards the largest envelope")
        #expect(first.payload == HapiComposer.payload(for: fits))
        await harness.advance(byMs: 5_000)
        let tooBig = HapiFallbackTests.readyEvent(name: name, agent: try HapiFallbackTests.agent(forPlaintextBytes: 2373, name: name))
        _ = try await harness.event(HapiFallbackTests.wire(tooBig))
        let second = try DeviceSide.open(try #require(harness.apnsRequests(token).last), key: key)
        #expect(second.payload == HapiComposer.payload(for: tooBig)?.minimal)

        await harness.advance(byMs: 5_000)
        let cjk = String(repeating: "中", count: 300)
        var summary = Self.ready
        summary["agentText"] = .string("AGENT_NOTIFY_SUMMARY " + JSONObject([
            ("summary", .string(cjk)), ("action", .string("做" + cjk)), ("status", .string(cjk)), ("agent", .string(cjk)),
            ("project", .string(cjk)),
        ]).serialized())
        _ = try await harness.event(summary)
        let third = try DeviceSide.open(try #require(harness.apnsRequests(token).last), key: key)
        #expect(third.payload == HapiComposer.payload(for: try HostEvent(json: .object(summary)))?.withoutSummary)
        #expect(harness.apnsRequests(token).allSatisfy { ($0.payload?["hapi"]?["e"]?.stringValue?.utf8.count ?? 0) <= 3200 })
        #expect(harness.logs.lines.allSatisfy { !$0.contains("too_large") })
        await harness.stop()
    }

    @Test func permissionDebounceThroughTheRelay() async throws {
        let harness = try await HostHarness(hapi: .relay)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let question = JSONObject([("type", "question"), ("sessionId", "s9"), ("sessionName", "Plan"), ("agent", "Gemini"),
                                   ("pendingRequests", [["id": "q1", "tool": "AskUserQuestion",
                                                         "arguments": ["questions": [["question": "Ship it?"]]]]])])
        #expect(try await harness.event(question)["pending"] == true)
        await harness.advance(byMs: 499)
        #expect(harness.apnsRequests(token).isEmpty)
        await harness.advance(byMs: 1)
        let opened = try DeviceSide.open(try #require(harness.apnsRequests(token).first), key: key)
        #expect(opened.payload.type == .inputRequest && opened.payload.title == "Gemini needs your input")
        #expect(opened.payload.body == "Ship it?\nPlan" && opened.payload.requestId == "q1")
        #expect(harness.apnsRequests(token).first?.header("apns-collapse-id") == "input-request-s9")
        await harness.stop()
    }
}
