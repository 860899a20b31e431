import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 line 15: direct APNs mode.
@Suite(.hangLimit(.minutes(1))) struct DirectAPNsTests {
    @Test func directModeSendsTheRelayPayloadAndDeletesDeadTokens() async throws {
        let harness = try await HostHarness(mode: .apns)
        #expect(harness.relay == nil)
        let alive = TestToken.make(), dead = TestToken.make()
        try await harness.register(alive, locale: "ja", environment: "sandbox")
        try await harness.register(dead, locale: "ja")
        harness.fake.script(token: dead, .unregistered)
        let result = try await harness.event("permission", "s1", name: "Deploy", extra: [("requestId", "r7")])
        #expect(result["pending"] == true)
        harness.scheduler.advance(byMs: EventThrottle.debounceMs)
        await harness.service.waitForScheduledDispatches()
        let request = try #require(harness.fake.requests.first { $0.deviceToken == alive })
        #expect(request.status == 200, "the fake accepted the provider JWT")
        #expect(request.header("apns-topic") == HostHarness.bundleId)
        #expect(request.header("apns-push-type") == "alert")
        #expect(request.header("apns-priority") == "10")
        #expect(request.header("apns-collapse-id") == "permission-r7")
        #expect(request.header("apns-expiration") == String(harness.clock.nowMilliseconds / 1_000 + 3_600), "an hour by default")
        let eventId = try #require(result["eventId"]?.stringValue)
        let expected = """
            {"aps":{"alert":{"title":"許可が必要です","body":"Deploy"},"sound":"default","mutable-content":1,"badge":1,
            "thread-id":"permission-r7","interruption-level":"time-sensitive","relevance-score":1,"category":"PUSHGATE_PERMISSION"},
            "sessionId":"s1","eventId":"\(eventId)","requestId":"r7","kind":"permission","path":"/sessions/s1"}
            """
        #expect(request.payload == (try JSONValue.parse(expected)))
        let bearer = try #require(request.header("authorization")).dropFirst("bearer ".count)
        let jwt = try #require(JWT.verifyES256(String(bearer), publicKey: harness.apns.key.publicKey))
        #expect(jwt.header["kid"] == .string(FakeAPNsFixture.keyId) && jwt.claims["iss"] == .string(FakeAPNsFixture.teamId))
        #expect(try await harness.service.store.alertTokens().map(\.token) == [alive])
        #expect(harness.leaks([alive, dead, "許可が必要です", "Deploy", String(bearer)]).isEmpty)
        await harness.stop()
    }

    @Test func aZeroTTLDeliversNowOrNever() async throws {
        let harness = try await HostHarness(mode: .apns, hostEnvironment: ["PUSHGATE_APNS_TTL_SECONDS": "0"])
        let token = TestToken.make()
        try await harness.register(token)
        _ = try await harness.event("error", "s1", name: "Deploy")
        await harness.service.waitForScheduledDispatches()
        #expect(harness.fake.requests.first { $0.deviceToken == token }?.header("apns-expiration") == "0")
        await harness.stop()
    }
}
