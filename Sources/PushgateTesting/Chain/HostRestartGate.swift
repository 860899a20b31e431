import Dispatch
import Synchronization

/// The deliberate restarts of a host, as the clients posting to it see them: a request whose
/// connection failed is sent again only when the host was (or is being) restarted since it
/// went out, so a host that dies on its own still fails the run. Shared by the fault suite's
/// hub and the soak's load.
public final class HostRestartGate: Sendable {
    private struct State {
        /// How many restarts have begun.
        var generation = 0
        /// Entered while a restart is under way; waiters wait on it.
        var underWay: DispatchGroup?
    }

    /// The longest a request waits for a restart to end.
    public static let waitSeconds = 60

    private let state = Mutex(State())

    public init() {}

    /// The restarts begun so far; a request notes it before it goes out.
    public var current: Int { state.withLock { $0.generation } }

    /// A restart begins: the host is about to be killed.
    public func begin() {
        let underWay = DispatchGroup()
        underWay.enter()
        state.withLock {
            $0.generation += 1
            $0.underWay = underWay
        }
    }

    /// The host serves again (or will not: the restart failed, and the run with it).
    public func end() {
        state.withLock { state in
            defer { state.underWay = nil }
            return state.underWay
        }?.leave()
    }

    /// Whether a request that went out at `generation` and lost its connection met a restart;
    /// if so, returns once the host serves again (false when that took over ``waitSeconds``).
    /// Blocks the calling thread.
    public func waitIfRestarted(since generation: Int) -> Bool {
        let (current, underWay) = state.withLock { ($0.generation, $0.underWay) }
        guard generation != current || underWay != nil else { return false }
        return underWay?.wait(timeout: .now() + .seconds(Self.waitSeconds)) ?? .success == .success
    }

    /// ``waitIfRestarted(since:)`` for async callers, on a thread of its own.
    public func waitIfRestarted(since generation: Int) async -> Bool {
        (try? await onOwnThread { self.waitIfRestarted(since: generation) }) ?? false
    }
}
