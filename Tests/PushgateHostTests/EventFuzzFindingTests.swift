import PushgateCore
@testable import PushgateHost
import PushgateTestSupport
import PushgateTesting
import Testing

/// What the `host-event` fuzz target found (docs/fuzzing.md, "Findings"): events the host
/// accepted whose alert the relay refused, so no phone got it. Their inputs are in
/// Fixtures/fuzz/crashes/.
@Suite(.hangLimit(.minutes(1))) struct EventFuzzFindingTests {
    /// A session name over the relay's 1 024-byte body cap; a session name, session id and request
    /// id whose JSON escapes (`\u0001`, `\"`) make a 4 KiB APNs payload from far fewer bytes.
    static let findings = ["host-event-long-session-name", "host-event-escaped-text"]

    @Test(arguments: findings)
    func theEventReachesThePhoneThroughTheRelay(_ finding: String) async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.register(token)
        let answer = try await harness.call("POST", "/api/events", rawBody: Fixtures.bytes("fuzz/crashes/\(finding)"))
        // 202: a prompt waits out its debounce window first.
        #expect(answer.status == 200 || answer.status == 202)
        if answer.json?["pending"] == true {
            harness.scheduler.advance(byMs: EventThrottle.debounceMs)
            await harness.service.waitForScheduledDispatches()
        }
        #expect(harness.relayCount("send") == 1)
        #expect(harness.relayCount("send", status: 400) == 0)
        let body = try #require(harness.payloads(token).first?["aps"]?["alert"]?["body"]?.stringValue)
        #expect(body.utf8.count <= AlertBatch.maxBodyBytes)
        await harness.stop()
    }

    @Test func aBodyOverTheCapIsCutAtACharacterWithAnEllipsis() throws {
        let composer = AlertComposer(titles: try Fixtures.titles())
        let event = HostEvent(type: .ready, sessionId: "s1", sessionName: String(repeating: "é", count: 600))
        let batch = try #require(composer.batches(for: event, tokens: [AlertToken(token: TestToken.make())], badge: 1, tag: "t").first)
        #expect(batch.body == String(repeating: "é", count: 510) + "…")
        #expect(batch.body.utf8.count == 1_023)
    }

    @Test func escapesThatOverfillThePayloadShortenTheBody() throws {
        let composer = AlertComposer(titles: try Fixtures.titles())
        let name = String(repeating: "\u{2}", count: 1_000)
        let event = HostEvent(type: .permission, sessionId: String(repeating: "\u{1}", count: 256), sessionName: name,
                              requestId: String(repeating: "\"", count: 256))
        let batch = try #require(composer.batches(for: event, tokens: [AlertToken(token: TestToken.make())], badge: 1, tag: "t").first)
        #expect(batch.apnsPayload != nil)
        // Halved twice: 1 000 bytes, each 6 escaped, then 500, then 250 (247 and the ellipsis).
        #expect(batch.body == String(repeating: "\u{2}", count: 247) + "…")
        // The ids stay whole: the app still finds the session and the prompt.
        #expect(batch.data.first { $0.key == "sessionId" }?.value == event.sessionId)
        #expect(batch.data.first { $0.key == "requestId" }?.value == event.requestId)
    }
}
