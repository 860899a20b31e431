/// Everything an event loop keeps for one origin: waiting requests, connections, back-off.
final class OriginState {
    let origin: HTTP2Origin
    var waiting = RequestQueue()
    /// Waiting requests not yet finished (the queue drops finished ones lazily).
    var waitingCount = 0
    var connections: [HTTP2Connection] = []
    var backoff: ReconnectBackoff
    /// A DNS lookup is running on a helper thread.
    var resolving = false
    /// Connection attempts so far; picks the next resolved address.
    var attempts = 0

    init(origin: HTTP2Origin, backoff: ReconnectBackoff) {
        self.origin = origin
        self.backoff = backoff
    }

    var usableConnectionCount: Int { connections.reduce(0) { $0 + ($1.isUsable ? 1 : 0) } }

    var isOpeningConnection: Bool { resolving || connections.contains { $0.isOpening } }
}
