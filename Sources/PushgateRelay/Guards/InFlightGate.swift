import Synchronization

/// Bounds concurrent provider requests: `limit` run, as many more wait, the rest are refused.
///
/// - Important: a token refused here gets `{token, ok:false}` without being sent
///   (relay-protocol.md §2, in-flight gate).
public final class InFlightGate: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let limit: Int
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

extension InFlightGate {
    /// Requests waiting for a permit (tests and metrics).
    public var waitingCount: Int { state.withLock { $0.waiting.count } }
}
