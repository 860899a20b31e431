import Testing
@testable import PushgateTesting
import PushgateTestSupport

/// The fake server's small parts: delay queue, apns-id generator, error bodies.
@Suite(.hangLimit(.minutes(1))) struct ServerPartsTests {
    private func entry(due: UInt64, stream: Int32) -> DelayedResponseQueue.Entry {
        DelayedResponseQueue.Entry(
            due: due, connectionId: 1, streamId: stream,
            response: FakeHTTP2Response(status: 200, headers: [], body: []))
    }

    @Test func releasesEntriesInDueOrderKeepingArrivalOrderForTies() {
        var queue = DelayedResponseQueue()
        #expect(queue.nextDue == nil)
        queue.add(entry(due: 300, stream: 1))
        queue.add(entry(due: 100, stream: 3))
        queue.add(entry(due: 300, stream: 5))
        queue.add(entry(due: 200, stream: 7))
        #expect(queue.nextDue == 100)
        #expect(queue.takeDue(now: 99).isEmpty)
        #expect(queue.takeDue(now: 200).map(\.streamId) == [3, 7])
        #expect(queue.nextDue == 300)
        #expect(queue.takeDue(now: 350).map(\.streamId) == [1, 5])
        #expect(queue.nextDue == nil)
    }

    @Test func generatedApnsIdsAreUniqueUUIDs() {
        var generator = APNsIdGenerator()
        let ids = (0..<1000).map { _ in generator.next() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy(APNsRequestValidator.isUUID))
    }

    @Test func errorBodiesAreAppleShaped() throws {
        let gone = FakeAPNsResponse(status: 410, reason: .unregistered, apnsId: "id", timestampMilliseconds: 1_764_669_600_000,
                                    retryAfterSeconds: nil)
        #expect(String(decoding: gone.body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1764669600000}"#)
        let bad = FakeAPNsResponse(status: 400, reason: .badDeviceToken, apnsId: "id", timestampMilliseconds: 0, retryAfterSeconds: nil)
        #expect(String(decoding: bad.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(FakeAPNsResponse(status: 200, reason: nil, apnsId: "id", timestampMilliseconds: 0, retryAfterSeconds: nil).body.isEmpty)
    }

    @Test func aScriptedRetryAfterBecomesAHeader() {
        let busy = FakeAPNsResponse(status: 429, reason: .tooManyRequests, apnsId: "id", timestampMilliseconds: 0, retryAfterSeconds: 30)
        #expect(busy.headers.map { "\($0.name): \($0.value)" } == ["apns-id: id", "content-type: application/json", "retry-after: 30"])
    }

    @Test func aSequenceTakesOneStepPerRequestAndRepeatsTheLast() {
        var sequence = ScriptSequence([503, 503, 200])
        #expect((0..<5).map { _ in sequence.next() } == [503, 503, 200, 200, 200])
    }
}
