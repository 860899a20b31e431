@testable import PushgateCore
@testable import PushgateHost
import PushgateTestSupport
import PushgateTesting
import Testing

/// The relay lanes of the fan-out against a scripted relay on loopback: which rows each lane
/// targets, what it posts, and modes that must send nothing (protocol/hapi-push.md §6, §11 lines 23–24).
@Suite(.hangLimit(.minutes(1))) struct HapiRelayLaneTests {
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var ready: JSONObject { JSONObject([("type", "ready"), ("sessionId", "s1"), ("sessionName", "Demo"), ("agent", "Claude")]) }

    @Test func androidRelayTargetsKeyedPhonesOnlyAndIOSCarriesTheCollapseId() async throws {
        let relay = try HapiScriptedRelay()
        let harness = try await HostHarness(hapi: .relay, android: "relay", relayURL: relay.url + "/")
        let phoneKey = try #require(try await harness.registerDevice("phone:Keyed", platform: "phone"))
        try await harness.registerDevice("phone:Keyless", platform: "phone", key: nil)
        try await harness.registerDevice("wear:W", platform: "wear")
        let iosToken = TestToken.make()
        let iosKey = try #require(try await harness.registerDevice(iosToken))
        let result = try await harness.event(Self.ready)
        #expect(result["accepted"] == 2 && result["failed"] == 1 && result["dropped"] == 0, "the keyless phone failed, wear uncounted")
        let requests = relay.requests
        #expect(requests.map { $0.body?["platform"]?.stringValue } == ["android", "ios"], "Android first, then iOS")
        let android = try #require(requests.first?.body)
        #expect(android["token"] == "phone:Keyed" && android["collapseId"] == nil && android["priority"] == 10)
        let ios = try #require(requests.last?.body)
        #expect(ios["token"] == .string(iosToken) && ios["collapseId"] == "ready-s1" && ios["priority"] == 10)
        let expected = try #require(HapiComposer.payload(for: try HostEvent(json: .object(Self.ready))))
        for (body, key) in [(android, phoneKey), (ios, iosKey)] {
            let envelope = try #require(body["envelope"]?.stringValue)
            #expect(try HapiPayload(plaintext: HapiEnvelope.open(envelope, key: key)) == expected)
        }
        #expect(android["envelope"] != ios["envelope"], "each device its own envelope")
        #expect(try await harness.service.store.hapiDevices(namespace: "default").count == 4, "failed rows are kept")
        await harness.stop()
        relay.stop()
    }

    @Test func relayDeadAnswerPrunesAndOddAnswersKeep() async throws {
        let relay = try HapiScriptedRelay()
        let harness = try await HostHarness(hapi: .relay, android: "off", relayURL: relay.url)
        let gone = TestToken.make(), proxy = TestToken.make()
        try await harness.registerDevice(gone)
        try await harness.registerDevice(proxy)
        relay.script(gone, .json(410, #"{"ok":false,"code":"unregistered"}"#))
        relay.script(proxy, .html(410))
        let result = try await harness.event(Self.ready)
        #expect(result["dropped"] == 1 && result["failed"] == 1 && result["nativeDelivered"] == false)
        #expect(try await harness.service.store.hapiDevices(namespace: "default").map(\.token) == [proxy])
        await harness.stop()
        relay.stop()
    }

    @Test func autoWithAMissingServiceAccountIsOffAndNeverRelays() async throws {
        let relay = try HapiScriptedRelay()
        let harness = try await HostHarness(hapi: .off, android: "auto", relayURL: relay.url,
                                            hostEnvironment: ["FCM_SERVICE_ACCOUNT_PATH": "/nonexistent/service-account.json"])
        try await harness.registerDevice("phone:1", platform: "phone")
        let result = try await harness.event(Self.ready)
        #expect(result["accepted"] == 0 && result["failed"] == 0)
        #expect(relay.requests.isEmpty)
        #expect(try await harness.call("GET", "/api/status").json?["hapi"]?["android"] == "off")
        #expect(harness.logs.lines.contains { $0.contains("hapi push is off") && $0.contains("fcmServiceAccountPath") })
        await harness.stop()
        relay.stop()
    }

    @Test func oversizedSummaryIsDroppedBeforeTheRelay() async throws {
        let relay = try HapiScriptedRelay()
        let harness = try await HostHarness(hapi: .relay, android: "off", relayURL: relay.url)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let cjk = String(repeating: "中", count: 300)
        let footer = JSONObject([("summary", .string(cjk)), ("action", .string("做" + cjk)), ("status", .string(cjk)),
                                 ("agent", .string(cjk)), ("project", .string(cjk))]).serialized()
        var body = Self.ready
        body["agentText"] = .string("AGENT_NOTIFY_SUMMARY " + footer)
        _ = try await harness.event(body)
        let envelope = try #require(relay.requests.first?.body?["envelope"]?.stringValue)
        #expect(envelope.utf8.count <= 3200)
        let expected = try #require(HapiComposer.payload(for: try HostEvent(json: .object(body))))
        #expect(try HapiPayload(plaintext: HapiEnvelope.open(envelope, key: key)) == expected.withoutSummary)
        await harness.stop()
        relay.stop()
    }
}
