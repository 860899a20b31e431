/// Posts a scenario's events through the hub, `window` at a time, with the fault in the middle:
/// it starts when a third of the events have been answered, while others are still in flight;
/// the middle third is posted once it has taken hold, and the last third only once it is over,
/// so what happens during and after a fault is measured. Every step waits for an answer or for
/// the fault; the only sleep is the span the fault holds.
enum Burst {
    /// What the host answered in the end for each event, by event id.
    static func post(_ events: [FaultEvent], window: Int, through hub: Hub,
                     fault: BurstFault?) async throws -> [String: Hub.Outcome] {
        let faultStartsAt = events.count / 3, lastThird = 2 * events.count / 3
        var outcomes: [String: Hub.Outcome] = [:]
        var faultEnd: Task<Void, any Error>?
        var faultOver = fault == nil
        do {
            try await withThrowingTaskGroup(of: (String, Hub.Outcome).self) { group in
                var next = 0, inFlight = 0
                while next < events.count || inFlight > 0 {
                    if let fault, faultEnd == nil, outcomes.count >= faultStartsAt {
                        // The middle third is posted only once the fault holds, however long it takes to set up.
                        try await fault.begin()
                        faultEnd = Task {
                            try await Task.sleep(for: fault.hold)
                            try await fault.end()
                        }
                    } else if next == lastThird, !faultOver, let ending = faultEnd {
                        try await ending.value
                        faultOver = true
                    } else if next < events.count, inFlight < window, next < lastThird || faultOver {
                        let event = events[next]
                        group.addTask { (event.eventId, try await hub.post(event)) }
                        next += 1
                        inFlight += 1
                    } else if let (eventId, outcome) = try await group.next() {
                        inFlight -= 1
                        outcomes[eventId] = outcome
                    }
                }
            }
        } catch {
            faultEnd?.cancel()
            throw error
        }
        return outcomes
    }
}

/// A fault as a burst applies it: `begin` once a third of the events were answered (posting
/// waits for it), the middle third posted while it holds for `hold`, then `end`.
struct BurstFault: Sendable {
    var begin: @Sendable () async throws -> Void
    /// Zero for a fault that is over when `begin` returns (a signal, a restart).
    var hold: Duration = .zero
    var end: @Sendable () async throws -> Void = {}
}
