@testable import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 line 39: `nativeDelivered` and the Web Push gate, host ↔ fake APNs.
@Suite(.hangLimit(.minutes(1))) struct HapiGateTests {
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var ready: JSONObject { JSONObject([("type", "ready"), ("sessionId", "s1"), ("sessionName", "Demo")]) }

    @Test func noDevicesMeansWebPush() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let result = try await harness.event(Self.ready)
        #expect(result["nativeDelivered"] == false)
        #expect(harness.web.calls == ["toast", "webPush"], "no visible web client: the toast reaches nobody, Web Push goes")
        await harness.stop()
    }

    @Test func allSendsFailedMeansWebPush() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let first = TestToken.make(), second = TestToken.make()
        try await harness.registerDevice(first)
        try await harness.registerDevice(second)
        for token in [first, second] { harness.fake.script(token: token, ScriptedResponse(status: 500, reason: .internalServerError)) }
        let result = try await harness.event(Self.ready)
        #expect(result["nativeDelivered"] == false && result["failed"] == 2)
        #expect(harness.web.calls == ["toast", "webPush"])
        #expect(try await harness.service.store.hapiDevices(namespace: "default").count == 2, "failed rows are kept")
        await harness.stop()
    }

    @Test func aCorruptKeyRowIsDeadAndDoesNotCount() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        try await harness.service.store.registerHapiDevice(namespace: "default", token: token, platform: .ios, deviceId: "d",
                                                           pushKey: "c2hvcnQ=")
        let result = try await harness.event(Self.ready)
        #expect(result["nativeDelivered"] == false && result["dropped"] == 1)
        #expect(harness.fake.requests.isEmpty, "deleted without a send")
        #expect(try await harness.service.store.hapiDevices(namespace: "default").isEmpty)
        #expect(harness.web.calls == ["toast", "webPush"])
        await harness.stop()
    }

    @Test func oneSentSuppressesToastAndWebPush() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let good = TestToken.make(), bad = TestToken.make()
        try await harness.registerDevice(good)
        try await harness.registerDevice(bad)
        harness.fake.script(token: bad, ScriptedResponse(status: 500, reason: .internalServerError))
        let result = try await harness.event(Self.ready)
        #expect(result["nativeDelivered"] == true && result["accepted"] == 1 && result["failed"] == 1)
        #expect(harness.web.calls.isEmpty)
        await harness.stop()
    }

    @Test func aVisibleWebClientGetsTheToastOnly() async throws {
        let harness = try await HostHarness(hapi: .apns)
        harness.web.setVisibleClients(1)
        _ = try await harness.event(Self.ready)
        #expect(harness.web.calls == ["toast"])
        #expect(harness.logs.lines.contains { $0.contains("web fallback") && $0.contains("branch=toast") })
        await harness.stop()
    }

    @Test func deadTokensArePrunedAndNotForTopicIsKept() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let gone = TestToken.make(), bad = TestToken.make(), topic = TestToken.make()
        for token in [gone, bad, topic] { try await harness.registerDevice(token) }
        harness.fake.script(token: gone, .unregistered)
        harness.fake.script(token: bad, ScriptedResponse(status: 400, reason: .badDeviceToken))
        harness.fake.script(token: topic, ScriptedResponse(status: 400, reason: .deviceTokenNotForTopic))
        let result = try await harness.event(Self.ready)
        #expect(result["dropped"] == 2 && result["failed"] == 1)
        #expect(try await harness.service.store.hapiDevices(namespace: "default").map(\.token) == [topic])
        await harness.stop()
    }
}
