import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// Direct FCM (`androidPushMode` `fcm`): the operator's own project gets the readable payload as
/// data; host ↔ fake FCM over loopback, with the OAuth exchange verified by the fake.
@Suite(.hangLimit(.minutes(1))) struct HapiDirectFCMTests {
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var ready: JSONObject { JSONObject([("type", "ready"), ("sessionId", "s1"), ("sessionName", "Demo"), ("agent", "Claude")]) }

    @Test func phoneAndWearRowsGetDataOnlyMessages() async throws {
        let harness = try await HostHarness(hapi: .off, android: "fcm")
        let fcm = try #require(harness.fakeFCM)
        #expect(try await harness.call("GET", "/api/status").json?["hapi"]?["android"] == "fcm")
        try await harness.registerDevice("phone-token:A", platform: "phone", key: nil)
        try await harness.registerDevice("wear-token:B", platform: "wear")
        try await harness.registerDevice(TestToken.make(), platform: "ios")
        let result = try await harness.event(Self.ready)
        #expect(result["accepted"] == 2 && result["nativeDelivered"] == true)
        let sends = fcm.sends
        #expect(sends.count == 2 && sends.allSatisfy { $0.status == 200 })
        let expected = try #require(HapiComposer.payload(for: try HostEvent(json: .object(Self.ready)))).json
        for send in sends {
            let message = try #require(send.message)
            #expect(message["data"] == .object(expected), "the readable payload, every value a string")
            #expect(message["notification"] == nil && message["android"]?["priority"] == "HIGH")
            #expect(message["android"]?["direct_boot_ok"] == (send.deviceToken == "wear-token:B" ? .bool(true) : nil))
        }
        #expect(Set(sends.compactMap(\.deviceToken)) == ["phone-token:A", "wear-token:B"])
        #expect(fcm.requests.filter { $0.kind == .tokenExchange }.count == 1)
        #expect(harness.leaks(["Claude is waiting", "phone-token:A"]).isEmpty)
        await harness.stop()
    }

    @Test func deadTokensArePrunedAndOthersKept() async throws {
        let harness = try await HostHarness(hapi: .off, android: "fcm")
        let fcm = try #require(harness.fakeFCM)
        for token in ["gone", "invalid", "busy", "ok"] { try await harness.registerDevice(token, platform: "phone", key: nil) }
        fcm.script(token: "gone", FakeFCMScript(.unregistered))
        fcm.script(token: "invalid", FakeFCMScript(.invalidToken))
        fcm.script(token: "busy", FakeFCMScript(.quotaExceeded))
        let result = try await harness.event(Self.ready)
        #expect(result["accepted"] == 1 && result["dropped"] == 2 && result["failed"] == 1)
        #expect(Set(try await harness.service.store.hapiDevices(namespace: "default").map(\.token)) == ["busy", "ok"])
        await harness.stop()
    }

    @Test func directDataOverTheFCMLimitFailsAndKeepsTheRow() async throws {
        let harness = try await HostHarness(hapi: .off, android: "fcm")
        try await harness.registerDevice("phone", platform: "phone", key: nil)
        var body = Self.ready
        body["sessionName"] = .string(String(repeating: "n", count: 3_000))
        let result = try await harness.event(body)
        #expect(result["failed"] == 1 && result["nativeDelivered"] == false)
        #expect(harness.fakeFCM?.sends.first?.status == 400)
        #expect(try await harness.service.store.hapiDevices(namespace: "default").count == 1)
        await harness.stop()
    }
}
