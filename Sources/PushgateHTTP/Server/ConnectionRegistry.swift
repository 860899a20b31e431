internal import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A daemon's open connections, for the request-deadline sweep and for `stop()`.
final class ConnectionRegistry: Sendable {
    private let connections = Mutex<[ObjectIdentifier: ConnectionState]>([:])

    /// A connection was accepted.
    func insert(_ state: ConnectionState) {
        connections.withLock { $0[ObjectIdentifier(state)] = state }
    }

    /// A connection is about to be closed (its socket is still open).
    func remove(_ state: ConnectionState) {
        connections.withLock { $0[ObjectIdentifier(state)] = nil }
    }

    /// Shuts down the sockets of connections whose request has not fully arrived by its deadline.
    func sweepDeadlines() {
        let now = ContinuousClock.now
        connections.withLock { connections in
            for state in connections.values {
                let overdue = state.slot.withLock { slot -> Bool in
                    guard let deadline = slot.deadline, deadline <= now else { return false }
                    slot.deadline = nil
                    return true
                }
                // `remove` needs this lock and runs before libmicrohttpd closes the socket,
                // so the descriptor still belongs to this connection.
                if overdue { shutdown(state.socket, Int32(SHUT_RDWR)) }
            }
        }
    }

    /// Marks every running handler abandoned and resumes the suspended connections among them
    /// (libmicrohttpd then closes them unanswered); returns how many handlers were running.
    func abandonHandlers() -> Int {
        let (running, suspended) = connections.withLock { connections in
            var running = 0
            var suspended: [ConnectionState] = []
            for state in connections.values {
                state.slot.withLock { slot in
                    guard slot.phase == .handling else { return }
                    slot.phase = .abandoned
                    running += 1
                    if slot.suspended { suspended.append(state) }
                }
            }
            return (running, suspended)
        }
        for state in suspended { MHD_resume_connection(state.connection) }
        return running
    }
}
