import Synchronization

/// Counts deliveries under way, so shutdown (and tests) can wait until all have finished.
final class DeliveryTracker: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `work` in a new task, counted until it ends.
    func start(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { $0.running += 1 }
        Task {
            await work()
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.running -= 1
                guard state.running == 0 else { return [] }
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
    }

    /// Deliveries under way now.
    var running: Int { state.withLock { $0.running } }

    /// Returns once no delivery is under way.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.running > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
