import Dispatch

/// A serial executor backed by its own serial `DispatchQueue`, so an actor using it runs
/// blocking work (SQLite calls, fsync) on that queue's thread instead of the cooperative pool.
/// Several actors may share one: they then take turns on the one queue (docs/store.md).
public final class DispatchQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// Makes an executor on a new serial queue named `label`.
    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// Runs `work` on the queue, outside any task, and returns at once.
    public func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// Runs `work` on the queue and waits for it: for setting up what the queue will own,
    /// before any actor on this executor runs. Never call it from the queue itself.
    public func runAndWait<R>(_ work: () throws -> R) rethrows -> R {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync(execute: work)
    }

    public func checkIsolated() { dispatchPrecondition(condition: .onQueue(queue)) }
}
