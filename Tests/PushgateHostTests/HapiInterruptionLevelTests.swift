import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/hapi.md "Interruption level": the encrypted path sends the event's level only to a
/// relay that announces the extension in `/healthz`; hapi's own relay gets today's body.
@Suite(.hangLimit(.minutes(1))) struct HapiInterruptionLevelTests {
    static var permission: JSONObject {
        JSONObject([("type", "permission"), ("sessionId", "s1"), ("requestId", "r1"), ("sessionName", "Demo")])
    }

    @Test func aPushgateRelayWritesTheLevelIntoTheAlert() async throws {
        let harness = try await HostHarness(hapi: .relay)
        let iosToken = TestToken.make()
        try await harness.registerDevice(iosToken)
        #expect(try await harness.event(Self.permission)["pending"] == true)
        await harness.advance(byMs: EventThrottle.debounceMs)
        #expect(try await harness.event(JSONObject([("type", "ready"), ("sessionId", "s2")]))["accepted"] == 1)
        let levels = harness.apnsRequests(iosToken).map { $0.payload?["aps"]?["interruption-level"] }
        #expect(levels == ["time-sensitive", "active"])
        await harness.stop()
    }

    @Test func aRelayWithoutTheExtensionGetsTodaysBody() async throws {
        let relay = try HapiScriptedRelay()
        let harness = try await HostHarness(hapi: .relay, relayURL: relay.url)
        try await harness.registerDevice(TestToken.make())
        _ = try await harness.event(Self.permission)
        await harness.advance(byMs: EventThrottle.debounceMs)
        let pushes = relay.requests.filter { $0.path == "/v1/push" }
        #expect(pushes.count == 1)
        #expect(pushes.first?.body?.objectValue?.members.map(\.key) == ["platform", "token", "envelope", "collapseId", "priority"])
        await harness.stop()
        relay.stop()
    }
}
