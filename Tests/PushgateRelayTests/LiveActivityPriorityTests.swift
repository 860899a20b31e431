import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// The `priority` extension of `POST /v1/push/live-activity` (protocol/signed-relay.md §5, protocol/host-api.md §6):
/// optional, 5 or 10 (default 10), not signed, and it sets `apns-priority`.
@Suite(.hangLimit(.minutes(1))) struct LiveActivityPriorityTests {
    /// A signed live-activity body for `token` whose `priority` member is then set to `priority` (nil: absent).
    private func body(_ harness: RelayHarness, key: P256PrivateKey, token: String, priority: JSONValue?) throws -> [UInt8] {
        let push = try LiveActivityPush(tokens: [token], event: .update, contentState: LiveActivityContentState(
            status: .working, eventVersion: harness.clock.nowMilliseconds, updatedAt: harness.clock.nowSeconds))
        var object = try JSONValue.parse(RelayRequestSigner(key: key).liveActivity(push, ts: harness.clock.nowMilliseconds)).objectValue!
        object["priority"] = priority
        return JSONValue.object(object).serializedBytes()
    }

    @Test func priorityIsOptionalUnsignedAndOnlyFiveOrTen() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerLiveActivityToken(token)
        for invalid: JSONValue in [7, 1, "5", 5.5, .null] {
            let reply = try await harness.request("POST", "/v1/push/live-activity",
                                                  body: body(harness, key: host.key, token: token, priority: invalid))
            #expect(reply.status == 400 && String(decoding: reply.body, as: UTF8.self) == #"{"error":"invalid_request"}"#,
                    "priority \(invalid.serialized())")
            harness.clock.advance(milliseconds: 1)
        }
        #expect(harness.received(token).isEmpty)
        for (priority, header) in [(JSONValue?.none, "10"), (5, "5"), (10, "10")] {
            // The signature covers no priority: the same signed request is valid with any allowed value.
            let reply = try await host.post("live-activity", body(harness, key: host.key, token: token, priority: priority))
            #expect(reply.results.map(\.ok) == [true])
            #expect(harness.received(token).last?.header("apns-priority") == header)
            harness.clock.advance(milliseconds: 1)
        }
        await harness.stop()
    }
}
