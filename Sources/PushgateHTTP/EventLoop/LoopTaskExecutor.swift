import Synchronization

/// The task executor of ``RouteHandler/resumesInline`` handlers: a job enqueued on the server's
/// loop thread runs there at once (the handler continues inline, without a wake-up); a job
/// enqueued from any other thread — a store queue finishing a commit, an HTTP/2 client's loop —
/// is handed to the loop, so a handler never continues on a thread that owns something else (a
/// database connection, a client's sockets) and never blocks it (docs/concurrency.md).
final class LoopTaskExecutor: TaskExecutor {
    /// Nested inline runs allowed on the loop thread before a job is queued instead, so a chain
    /// of jobs that enqueue each other never grows the stack without bound.
    private static let maxDepth = 8

    private let loop: EpollEventLoop
    /// Inline runs under way on the loop thread (only the loop thread changes it).
    private let depth = Atomic<Int>(0)

    init(loop: EpollEventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if loop.isCurrent, depth.load(ordering: .relaxed) < Self.maxDepth {
            depth.add(1, ordering: .relaxed)
            job.runSynchronously(on: asUnownedTaskExecutor())
            depth.subtract(1, ordering: .relaxed)
        } else {
            loop.execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
