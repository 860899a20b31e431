import Foundation
import PushgateCore

/// Posts events to the host as an agent hub does (docs/host.md, "Outbox"): an answer 503
/// `store_unavailable` is posted again with the same `eventId` until it gets a 2xx, and a post
/// whose connection failed because the scenario restarted the host is posted again to the
/// restarted host. Anything else the host answers fails the scenario.
struct Hub: Sendable {
    /// What the host answered an event in the end.
    struct Outcome: Sendable {
        /// Pushes accepted at once, by the 2xx answer.
        let accepted: Int
        /// Pushes written to the outbox, by the 2xx answer.
        let queued: Int
        /// Posts after the first (503 answers and connections lost to a restart).
        let reposts: Int
    }

    let client: HostClient
    let restarts: HostRestarts
    /// The longest a hub keeps posting one event again.
    static let repostSeconds: Double = 60
    /// The wait before the first post again, doubled each time up to a second, as a hub backs off.
    static let firstBackOff: Duration = .milliseconds(100)

    func post(_ event: FaultEvent) async throws -> Outcome {
        let deadline = ContinuousClock.now + .seconds(Self.repostSeconds)
        var backOff = Self.firstBackOff
        var reposts = 0
        while true {
            let generation = await restarts.current
            let answer: HostClient.Answer
            do {
                answer = try await client.post(event)
            } catch {
                guard await restarts.waitIfRestarted(since: generation), ContinuousClock.now < deadline else { throw error }
                reposts += 1
                continue
            }
            let result = answer.body
            if (200..<300).contains(answer.status) {
                guard result["eventId"]?.stringValue == event.eventId, let accepted = result["accepted"]?.int64Value,
                      let queued = result["queued"]?.int64Value else {
                    throw UnexpectedAnswer(description: "POST /api/events: unexpected dispatch result \(result.serialized())")
                }
                return Outcome(accepted: Int(accepted), queued: Int(queued), reposts: reposts)
            }
            guard answer.status == 503, result["error"]?.stringValue == "store_unavailable" else {
                throw UnexpectedAnswer(description: "POST /api/events: status \(answer.status): \(result.serialized())")
            }
            guard ContinuousClock.now + backOff < deadline else {
                throw UnexpectedAnswer(description: "POST /api/events: still 503 store_unavailable after \(Self.repostSeconds) s "
                                       + "for event \(event.eventId)")
            }
            try await Task.sleep(for: backOff)
            backOff = min(backOff * 2, .seconds(1))
            reposts += 1
        }
    }
}
