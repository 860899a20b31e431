import Dispatch

/// A serial executor backed by its own serial `DispatchQueue`, so an actor using it runs
/// blocking work (SQLite calls, fsync) on that queue's thread instead of the cooperative pool.
public final class DispatchQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// Makes an executor on a new serial queue named `label`.
    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// Runs `work` on the queue, outside any task.
    func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    public func checkIsolated() { dispatchPrecondition(condition: .onQueue(queue)) }
}
