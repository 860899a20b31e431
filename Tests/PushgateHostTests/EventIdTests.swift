import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// The event id: given by the hub or made by the host, answered in the dispatch result and
/// carried in every push of the event (host ↔ real relay ↔ fake APNs).
@Suite(.hangLimit(.minutes(1))) struct EventIdTests {
    @Test func aGivenEventIdIsAnsweredAndCarriedByEveryPush() async throws {
        let harness = try await HostHarness()
        let tokens = [TestToken.make(), TestToken.make()]
        for token in tokens { try await harness.register(token) }
        let result = try await harness.event("error", "s1", extra: [("eventId", "hub:run-12.step_3-A")])
        #expect(result["eventId"] == "hub:run-12.step_3-A" && result["accepted"] == 2)
        #expect(tokens.map { harness.payloads($0).map { $0["eventId"] } } == [["hub:run-12.step_3-A"], ["hub:run-12.step_3-A"]])
        await harness.stop()
    }

    @Test func withoutOneTheHostMakesADistinctIdPerEvent() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.register(token)
        let first = try await harness.event("error", "s1")
        let second = try await harness.event("task_complete", "s2", extra: [("taskName", "Build")])
        let ids = [first, second].compactMap { $0["eventId"]?.stringValue }
        #expect(ids.count == 2 && ids[0] != ids[1])
        #expect(ids.allSatisfy { $0.count == 32 && (try? Hex.decode($0)) != nil })
        #expect(harness.payloads(token).map { $0["eventId"]?.stringValue } == ids)
        await harness.stop()
    }

    @Test func aDebouncedPushCarriesTheIdOfTheWindowsLastEvent() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.register(token)
        for eventId in ["q1", "q2"] {
            let answer = try await harness.call("POST", "/api/events", .object(JSONObject([("type", "question"), ("sessionId", "s1"),
                                                                                          ("eventId", .string(eventId))])))
            #expect(answer.status == 202 && answer.json?["eventId"] == .string(eventId))
        }
        harness.scheduler.advance(byMs: EventThrottle.debounceMs)
        await harness.service.waitForScheduledDispatches()
        #expect(harness.payloads(token).map { $0["eventId"] } == ["q2"])
        await harness.stop()
    }

    /// The longest `sessionId` and `eventId` still fit the relay's `data` and payload limits.
    @Test func theLongestIdsPassTheRelaysLimits() async throws {
        let harness = try await HostHarness()
        let token = TestToken.make()
        try await harness.register(token)
        let sessionId = String(repeating: "s", count: 256), eventId = String(repeating: "e", count: EventId.maxBytes)
        let result = try await harness.event("error", sessionId, name: String(repeating: "n", count: 1_024),
                                             extra: [("eventId", .string(eventId))])
        #expect(result["accepted"] == 1)
        #expect(harness.payloads(token).first?["eventId"] == .string(eventId))
        await harness.stop()
    }
}
