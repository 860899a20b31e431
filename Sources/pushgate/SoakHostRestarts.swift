import Dispatch
import Synchronization

/// The soak's deliberate restarts of the host, as its load threads see them: a request whose
/// connection failed is sent again only when the host was (or is being) restarted since it
/// went out, so a host that dies on its own still fails the soak.
final class SoakHostRestarts: Sendable {
    private struct State {
        /// How many restarts have begun.
        var generation = 0
        /// Entered while a restart is under way; waiters wait on it.
        var underWay: DispatchGroup?
    }

    /// The longest a request waits for a restart to end.
    static let waitSeconds = 60

    private let state = Mutex(State())

    /// The restarts begun so far; a request notes it before it goes out.
    var current: Int { state.withLock { $0.generation } }

    /// A restart begins: the host is about to be killed.
    func begin() {
        let underWay = DispatchGroup()
        underWay.enter()
        state.withLock {
            $0.generation += 1
            $0.underWay = underWay
        }
    }

    /// The host serves again (or will not: the restart failed, and the soak with it).
    func end() {
        state.withLock { state in
            defer { state.underWay = nil }
            return state.underWay
        }?.leave()
    }

    /// Whether a request that went out at `generation` and lost its connection met a restart;
    /// if so, returns once the host serves again.
    func waitIfRestarted(since generation: Int) -> Bool {
        let (current, underWay) = state.withLock { ($0.generation, $0.underWay) }
        guard generation != current || underWay != nil else { return false }
        return underWay?.wait(timeout: .now() + .seconds(Self.waitSeconds)) ?? .success == .success
    }
}
