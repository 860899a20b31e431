import Synchronization

/// Runs async jobs one at a time, in the order they were submitted; submitting never blocks,
/// so a scheduler job can queue work without waiting for it.
final class SerialLane: Sendable {
    private let tail = Mutex<Task<Void, Never>?>(nil)

    /// Queues `work` behind everything submitted before; the task gives its result.
    @discardableResult
    func submit<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        tail.withLock { tail in
            let previous = tail
            let task = Task<T, any Error> {
                await previous?.value
                return try await work()
            }
            tail = Task { _ = try? await task.value }
            return task
        }
    }

    /// Queues `work` and waits for its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await submit(work).value
    }

    /// Returns once every job submitted so far, and every job those submitted, has finished.
    func drain() async {
        while let last = tail.withLock({ $0 }) {
            await last.value
            if tail.withLock({ $0 == last }) { return }
        }
    }
}
