import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A serial executor without a thread of its own: a job runs at once on the thread that
/// enqueues it when none of this executor's jobs is running — like taking a lock, with no
/// thread wake-up — and otherwise waits for the thread running them, which takes it next.
///
/// A job enqueued too deep in nested runs on one thread goes to a backing queue instead, so no
/// stack grows without bound. Jobs run on their callers' threads, so they may block only
/// briefly: SQLite without fsync, or a rare fsync.
public final class CallerRunsExecutor: SerialExecutor {
    private struct State {
        var running = false
        var queued: [UnownedJob] = []
        var head = 0

        mutating func next() -> UnownedJob? {
            guard head < queued.count else {
                queued.removeAll(keepingCapacity: true)
                head = 0
                return nil
            }
            defer { head += 1 }
            return queued[head]
        }
    }

    private enum Start { case here, behindRunner, onQueue }

    /// Nested inline runs allowed on one thread before a job goes to the backing queue.
    private static let maxDepth = 8

    private let state = Mutex(State())
    private let queue: DispatchQueue

    /// `label` names the backing queue.
    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let depth = NestingDepth.current
        let start = state.withLock { state -> Start in
            if state.running {
                state.queued.append(job)
                return .behindRunner
            }
            state.running = true
            if depth < Self.maxDepth { return .here }
            state.queued.append(job)
            return .onQueue
        }
        switch start {
        // The runtime holds no reference to an executor while it runs a job, and the job may
        // release the last reference to the actor and with it this executor: keep it alive.
        case .here:
            let retained = Unmanaged.passRetained(self)
            defer { retained.release() }
            drain(first: job)
        case .onQueue: queue.async { self.drain(first: nil) }
        case .behindRunner: break
        }
    }

    /// Runs `first` and then every queued job, then lets the next caller in.
    private func drain(first: UnownedJob?) {
        NestingDepth.current += 1
        defer { NestingDepth.current -= 1 }
        var next = first ?? takeNext()
        while let job = next {
            job.runSynchronously(on: asUnownedSerialExecutor())
            next = takeNext()
        }
    }

    /// The next queued job; when there is none, the next caller may run its own.
    private func takeNext() -> UnownedJob? {
        state.withLock { state in
            guard let job = state.next() else {
                state.running = false
                return nil
            }
            return job
        }
    }
}

/// How many inline executor runs are on the current thread's stack.
private enum NestingDepth {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    static var current: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }
}
