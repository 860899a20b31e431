import Foundation
import PushgateCore
import PushgateTesting

/// Posts events to the host as an agent hub does (docs/host.md, "Outbox"): an answer 503
/// `store_unavailable` is posted again with the same `eventId` until it gets a 2xx
/// (``HubRepostSchedule``), and a post whose connection failed because the scenario restarted
/// the host is posted again to the restarted host (``HostRestartGate``). Anything else the host
/// answers fails the scenario.
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
    let restarts: HostRestartGate
    let sent: PostsSent

    func post(_ event: FaultEvent) async throws -> Outcome {
        var schedule = HubRepostSchedule()
        var reposts = 0
        while true {
            let generation = restarts.current
            sent.note()
            let answer: HostClient.Answer
            do {
                answer = try await client.post(event)
            } catch {
                guard await restarts.waitIfRestarted(since: generation), schedule.isOpen else { throw error }
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
            guard HubRepostSchedule.isStoreUnavailable(status: answer.status, error: result["error"]?.stringValue) else {
                throw UnexpectedAnswer(description: "POST /api/events: status \(answer.status): \(result.serialized())")
            }
            guard let backOff = schedule.nextBackOff() else {
                throw UnexpectedAnswer(description: "POST /api/events: still 503 store_unavailable after "
                                       + "\(HubRepostSchedule.giveUpSeconds) s for event \(event.eventId)")
            }
            try await Task.sleep(for: backOff)
            reposts += 1
        }
    }
}
