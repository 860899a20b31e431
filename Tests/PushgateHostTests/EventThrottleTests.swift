import PushgateCore
@testable import PushgateHost
import Synchronization
import Testing

/// protocol/host-api.md §9 lines 11 and 12 at the event throttle, on a manual scheduler.
@Suite struct EventThrottleTests {
    @Test func readyAtMostOncePerFiveSecondsPerSession() {
        let scheduler = ManualScheduler()
        let gate = EventThrottle(scheduler: scheduler) { _ in }
        let ready = HostEvent(type: .ready, sessionId: "s1")
        #expect(gate.submit(ready) == .dispatch)
        scheduler.advance(byMs: 4_999)
        #expect(gate.submit(ready) == .cooldown)
        #expect(gate.submit(HostEvent(type: .ready, sessionId: "s2")) == .dispatch)
        scheduler.advance(byMs: 1)
        #expect(gate.submit(ready) == .dispatch)
        #expect(gate.submit(HostEvent(type: .error, sessionId: "s1")) == .dispatch)
    }

    @Test func permissionDebouncedLastOneWins() {
        let scheduler = ManualScheduler()
        let fired = Mutex<[HostEvent]>([])
        let gate = EventThrottle(scheduler: scheduler) { event in fired.withLock { $0.append(event) } }
        for (index, request) in ["r1", "r2", "r3"].enumerated() {
            if index > 0 { scheduler.advance(byMs: 200) }
            #expect(gate.submit(HostEvent(type: .permission, sessionId: "s1", requestId: request)) == .debounced)
        }
        #expect(gate.submit(HostEvent(type: .question, sessionId: "s1")) == .debounced)
        #expect(fired.withLock { $0.isEmpty })
        scheduler.advance(byMs: 99)
        #expect(fired.withLock { $0.isEmpty })
        scheduler.advance(byMs: 1)
        #expect(fired.withLock { $0.map(\.requestId) } == ["r3"])
        scheduler.advance(byMs: 400)
        #expect(fired.withLock { $0.map(\.type) } == [.permission, .question])
        scheduler.advance(byMs: 10_000)
        #expect(fired.withLock { $0.count } == 2)
        #expect(scheduler.pendingCount == 0)
    }
}
