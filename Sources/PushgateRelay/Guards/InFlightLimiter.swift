import Synchronization

/// Bounds concurrent provider requests: `limit` run, as many more wait, the rest are refused.
///
/// - Important: a token refused here gets `{token, ok:false}` without being sent
///   (docs/relay.md, `MAX_IN_FLIGHT`).
public final class InFlightLimiter: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Callers of ``waitForWaiting(atLeast:)`` and the count each waits for.
        var observers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Requests that may run at once (`MAX_IN_FLIGHT`); as many more may wait.
    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) { self.limit = limit }

    /// Runs `body` under a permit, or returns `nil` at once when both running and waiting slots are full.
    public func withPermit<T: Sendable>(_ body: () async -> T) async -> T? {
        guard await acquire() else { return nil }
        defer { release() }
        return await body()
    }

    /// Requests running now.
    public var inFlight: Int { state.withLock { $0.running } }

    private func acquire() async -> Bool {
        enum Decision { case run, wait, refuse }
        let decision: Decision = state.withLock { state in
            if state.running < limit {
                state.running += 1
                return .run
            }
            return state.waiting.count < limit ? .wait : .refuse
        }
        switch decision {
        case .run: return true
        case .refuse: return false
        case .wait:
            await withCheckedContinuation { continuation in
                let runNow: Bool = state.withLock { state in
                    if state.running < limit {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if runNow { continuation.resume() }
                notifyObservers()
            }
            return true
        }
    }

    private func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            // The permit passes straight to the first waiter, so `running` stays the same.
            if !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.running -= 1
            return nil
        }
        next?.resume()
    }
}

extension InFlightLimiter {
    /// Requests waiting for a permit (tests and metrics).
    public var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Returns once at least `count` requests wait for a permit (tests).
    func waitForWaiting(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.waiting.count < count else { return true }
                state.observers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Wakes the observers whose count of waiting requests is reached.
    private func notifyObservers() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let count = state.waiting.count
            defer { state.observers.removeAll { $0.count <= count } }
            return state.observers.filter { $0.count <= count }.map(\.continuation)
        }
        ready.forEach { $0.resume() }
    }
}
