import Foundation
import PushgateCore
import Testing
import PushgateTestSupport

/// What the `hapi-push` fuzz target found (docs/fuzzing.md, "Findings"); the inputs are in
/// Fixtures/fuzz/crashes/.
@Suite(.hangLimit(.minutes(1))) struct HapiPushFuzzFindingTests {
    /// A collapse id holding NUL passed every check, then the APNs client refused to make the
    /// notification (no header value may hold it) and the relay answered 502 `upstream` after its
    /// retries. It is a bad request, refused before anything is sent.
    @Test func aCollapseIdWithNULIsABadRequest() async throws {
        let harness = try await HapiPushHarness(fcm: false)
        let body = try Data(contentsOf: HapiPushHarness.packageRoot.appendingPathComponent("Fixtures/fuzz/crashes/hapi-push-nul-in-collapse-id"))
        let token = try #require(JSONValue.parse(Array(body))["token"]?.stringValue).lowercased()
        let answer = try await harness.push(Array(body))
        #expect(answer.status == 400)
        #expect(answer.json["code"] == "bad_request")
        #expect(answer.json["message"] == "collapseId must be a string without CR, LF or NUL")
        #expect(harness.relay.received(token).isEmpty)
        await harness.stop()
    }
}
