import Synchronization
import Testing
import PushgateCore

@Suite struct ManualSchedulerTests {
    @Test func runsDueJobsInTimeOrderAtTheirDueTime() {
        let scheduler = ManualScheduler(clock: ManualClock(milliseconds: 0))
        let log = Mutex<[String]>([])
        scheduler.schedule(afterMs: 500) { log.withLock { $0.append("b@\(scheduler.clock.nowMilliseconds)") } }
        scheduler.schedule(afterMs: 100) { log.withLock { $0.append("a@\(scheduler.clock.nowMilliseconds)") } }
        let cancelled = scheduler.schedule(afterMs: 200) { log.withLock { $0.append("cancelled") } }
        cancelled.cancel()
        scheduler.advance(byMs: 499)
        #expect(log.withLock { $0 } == ["a@100"])
        scheduler.advance(byMs: 1)
        #expect(log.withLock { $0 } == ["a@100", "b@500"])
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.clock.nowMilliseconds == 500)
    }

    @Test func repeatingJobsRunOncePerInterval() {
        let scheduler = ManualScheduler(clock: ManualClock(milliseconds: 0))
        let runs = Mutex(0)
        let job = scheduler.scheduleRepeating(everyMs: 1_000) { runs.withLock { $0 += 1 } }
        scheduler.advance(byMs: 3_500)
        #expect(runs.withLock { $0 } == 3)
        job.cancel()
        scheduler.advance(byMs: 10_000)
        #expect(runs.withLock { $0 } == 3)
    }

    @Test func dispatchSchedulerRunsAJob() async {
        let scheduler = DispatchScheduler(label: "test")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduler.schedule(afterMs: 1) { done.resume() }
        }
    }
}
