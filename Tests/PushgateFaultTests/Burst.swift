/// Posts a scenario's events through the hub, `window` at a time, with the fault in the middle:
/// it starts when a third of the events have been answered, while others are still in flight,
/// and the last third is posted only once it is over, so what happens after a fault is
/// measured too. Every step waits for an answer or for the fault, never for a span of time.
enum Burst {
    /// What the host answered in the end for each event, by event id.
    static func post(_ events: [FaultEvent], window: Int, through hub: Hub,
                     fault: (@Sendable () async throws -> Void)?) async throws -> [String: Hub.Outcome] {
        let faultStartsAt = events.count / 3, lastThird = 2 * events.count / 3
        var outcomes: [String: Hub.Outcome] = [:]
        var faultTask: Task<Void, any Error>?
        var faultOver = fault == nil
        do {
            try await withThrowingTaskGroup(of: (String, Hub.Outcome).self) { group in
                var next = 0, inFlight = 0
                while next < events.count || inFlight > 0 {
                    if next == lastThird, !faultOver, let started = faultTask {
                        try await started.value
                        faultOver = true
                    } else if next < events.count, inFlight < window, next < lastThird || faultOver {
                        let event = events[next]
                        group.addTask { (event.eventId, try await hub.post(event)) }
                        next += 1
                        inFlight += 1
                    } else if let (eventId, outcome) = try await group.next() {
                        inFlight -= 1
                        outcomes[eventId] = outcome
                        if let fault, faultTask == nil, outcomes.count >= faultStartsAt { faultTask = Task { try await fault() } }
                    }
                }
            }
        } catch {
            faultTask?.cancel()
            throw error
        }
        return outcomes
    }
}
