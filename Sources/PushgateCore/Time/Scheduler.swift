import Dispatch
import Synchronization

/// A handle to a scheduled job; cancelling is idempotent.
public protocol ScheduledJob: Sendable {
    /// Stops the job; a run already under way finishes.
    func cancel()
}

/// The one timer loop that drives all time-based work (cooldowns, debounces, refresh ticks,
/// expiry, purges). Jobs run one at a time on the scheduler's serial queue.
///
/// - Important: protocol/host-api.md §7 — tests use ``ManualScheduler`` and never sleep.
public protocol Scheduler: Sendable {
    /// The clock the scheduler reads.
    var clock: any WallClock { get }
    /// Runs `job` once, `delayMs` from now.
    @discardableResult
    func schedule(afterMs delayMs: Int64, _ job: @escaping @Sendable () -> Void) -> any ScheduledJob
    /// Runs `job` every `intervalMs`, first `intervalMs` from now.
    @discardableResult
    func scheduleRepeating(everyMs intervalMs: Int64, _ job: @escaping @Sendable () -> Void) -> any ScheduledJob
}

/// The real scheduler: `DispatchSourceTimer`s on one serial queue, reading the system clock.
public final class DispatchScheduler: Scheduler {
    // @unchecked: the only stored property is immutable and DispatchSource methods are thread-safe.
    private final class Job: ScheduledJob, @unchecked Sendable {
        let source: any DispatchSourceTimer
        init(source: any DispatchSourceTimer) { self.source = source }
        func cancel() { source.cancel() }
    }

    public let clock: any WallClock
    private let queue: DispatchQueue

    public init(label: String = "pushgate.scheduler", clock: any WallClock = SystemClock()) {
        self.clock = clock
        queue = DispatchQueue(label: label)
    }

    @discardableResult
    public func schedule(afterMs delayMs: Int64, _ job: @escaping @Sendable () -> Void) -> any ScheduledJob {
        let handle = Job(source: DispatchSource.makeTimerSource(queue: queue))
        handle.source.schedule(deadline: .now() + .milliseconds(Int(max(0, delayMs))))
        // Cancelling after the one run releases the handler and with it this reference cycle.
        handle.source.setEventHandler {
            job()
            handle.cancel()
        }
        handle.source.resume()
        return handle
    }

    @discardableResult
    public func scheduleRepeating(everyMs intervalMs: Int64, _ job: @escaping @Sendable () -> Void) -> any ScheduledJob {
        let handle = Job(source: DispatchSource.makeTimerSource(queue: queue))
        let interval = DispatchTimeInterval.milliseconds(Int(max(1, intervalMs)))
        handle.source.schedule(deadline: .now() + interval, repeating: interval)
        handle.source.setEventHandler(handler: job)
        handle.source.resume()
        return handle
    }
}

/// A scheduler for tests: time moves only through ``advance(byMs:)``, which runs every job that
/// falls due, in time order, on the caller's thread.
public final class ManualScheduler: Scheduler {
    private final class Job: ScheduledJob {
        let cancelled = Atomic<Bool>(false)
        func cancel() { cancelled.store(true, ordering: .relaxed) }
    }

    private struct Entry {
        var dueMs: Int64
        var sequence: Int
        var intervalMs: Int64?
        var job: Job
        var body: @Sendable () -> Void
    }

    private let manualClock: ManualClock
    private let entries = Mutex<(list: [Entry], sequence: Int)>(([], 0))

    public var clock: any WallClock { manualClock }

    public init(clock: ManualClock = ManualClock()) { manualClock = clock }

    @discardableResult
    public func schedule(afterMs delayMs: Int64, _ job: @escaping @Sendable () -> Void) -> any ScheduledJob {
        add(dueMs: manualClock.nowMilliseconds + max(0, delayMs), intervalMs: nil, job)
    }

    @discardableResult
    public func scheduleRepeating(everyMs intervalMs: Int64, _ job: @escaping @Sendable () -> Void) -> any ScheduledJob {
        add(dueMs: manualClock.nowMilliseconds + max(1, intervalMs), intervalMs: max(1, intervalMs), job)
    }

    /// Whether a job not yet run is due now: one scheduled, while an advance ran, for a time the
    /// advance has already passed (work started by a job that read the clock before it moved on).
    var hasDueJobs: Bool {
        let now = manualClock.nowMilliseconds
        return entries.withLock { $0.list.contains { $0.dueMs <= now && !$0.job.cancelled.load(ordering: .relaxed) } }
    }

    /// Jobs not yet run or cancelled.
    public var pendingCount: Int {
        entries.withLock { $0.list.filter { !$0.job.cancelled.load(ordering: .relaxed) }.count }
    }

    /// Drops every job not yet run: what a harness does when it stops, since a job that never
    /// comes due would otherwise keep what it captured — often the owner of this scheduler — alive.
    func discardPending() { entries.withLock { $0.list.removeAll() } }

    /// Moves the clock forward by `ms`, running each due job at its due time.
    public func advance(byMs ms: Int64) {
        let target = manualClock.nowMilliseconds + ms
        while let entry = popDue(before: target) {
            manualClock.set(milliseconds: entry.dueMs)
            entry.body()
        }
        manualClock.set(milliseconds: target)
    }

    private func add(dueMs: Int64, intervalMs: Int64?, _ body: @escaping @Sendable () -> Void) -> any ScheduledJob {
        let job = Job()
        entries.withLock { state in
            state.sequence += 1
            state.list.append(Entry(dueMs: dueMs, sequence: state.sequence, intervalMs: intervalMs, job: job, body: body))
        }
        return job
    }

    private func popDue(before target: Int64) -> Entry? {
        entries.withLock { state in
            state.list.removeAll { $0.job.cancelled.load(ordering: .relaxed) }
            guard let index = state.list.indices
                .filter({ state.list[$0].dueMs <= target })
                .min(by: { (state.list[$0].dueMs, state.list[$0].sequence) < (state.list[$1].dueMs, state.list[$1].sequence) })
            else { return nil }
            let entry = state.list[index]
            if let interval = entry.intervalMs {
                state.sequence += 1
                state.list[index].dueMs += interval
                state.list[index].sequence = state.sequence
            } else {
                state.list.remove(at: index)
            }
            return entry
        }
    }
}
