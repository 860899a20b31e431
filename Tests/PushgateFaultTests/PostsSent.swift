import Synchronization

/// Counts the posts the hub has sent, so that a fault can wait until one went out against a
/// host it froze: that post is then certain to meet the restart unanswered.
final class PostsSent: Sendable {
    private struct State {
        var count = 0
        var waiters: [(beyond: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.count } }

    /// A post goes out (after it noted the restart generation).
    func note() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.beyond < count }
            state.waiters.removeAll { $0.beyond < count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once more than `beyond` posts have gone out.
    func wait(beyond: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.count > beyond { return true }
                state.waiters.append((beyond, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
