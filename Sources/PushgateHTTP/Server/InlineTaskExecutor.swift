/// The task executor of ``RouteHandler/resumesInline`` handlers: runs each job at once on the
/// thread that enqueues it, so a task resumed by a store or network thread continues there.
final class InlineTaskExecutor: TaskExecutor {
    static let shared = InlineTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
