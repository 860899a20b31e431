import Synchronization

/// Counts requests between their first byte of handling and their completion, and wakes
/// waiters when the count drops to zero (graceful shutdown).
final class InFlightTracker: Sendable {
    private struct State {
        var count = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Requests currently in flight.
    var count: Int { state.withLock { $0.count } }

    /// A request started.
    func enter() { state.withLock { $0.count += 1 } }

    /// A request completed (answered, or its connection closed).
    func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.count -= 1
            guard state.count == 0, !state.waiters.isEmpty else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Returns `true` once no request is in flight, or `false` after `timeout`.
    func waitUntilIdle(timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            let id = state.withLock { state -> UInt64? in
                guard state.count > 0 else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume(returning: true) }
            Task { [self] in
                try? await Task.sleep(for: timeout)
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
    }
}
