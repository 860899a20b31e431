import Testing
import PushgateCore
@testable import PushgateRelay
import PushgateTestSupport

/// docs/relay.md "FCM": a relay with hapi's Android lane and the gateway's on one service
/// account opens one connection to FCM and exchanges one access token for both.
@Suite(.hangLimit(.minutes(1))) struct RelayFCMSharingTests {
    @Test func hapiPushAndTheGatewayShareOneFCMConnection() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"], fcm: true)
        let fcm = try #require(harness.fcm)
        let session = try await harness.handshake(try harness.newHost())
        let id = try await harness.register(GatewayHarness.device("pixel", token: RelayFCMClientsTests.token, environment: nil,
                                                                  platform: "android"), session: session)
        _ = try await harness.send(GatewayHarness.send([id], agentState: nil), session: session)
        await harness.advance(byMs: 0)
        let push = try await harness.call("POST", "/v1/push", body: HapiPushHarness.body(platform: "android", token: RelayFCMClientsTests.token),
                                          headers: ["Content-Type: application/json"])
        #expect(push.status == 200)
        #expect(harness.gateway.counter("delivery_sent") == 1)
        #expect(fcm.counters.sendsByStatus[200] == 2)
        #expect(fcm.counters.connectionsAccepted == 1)
        #expect(fcm.counters.tokenRequests == 1)
        await harness.stop()
    }
}
