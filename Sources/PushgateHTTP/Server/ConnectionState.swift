internal import CMicroHTTPD
import Synchronization

/// The request currently on a connection, from its first header byte to its completion.
struct RequestSlot {
    enum Phase {
        /// Waiting for a request's headers.
        case idle
        /// Headers seen; body arriving, or an answer already decided (``RequestSlot/response``).
        case receiving
        /// The route handler is running (``RequestSlot/suspended`` once it outlived its first call).
        case handling
        /// ``RequestSlot/response`` is ready to queue.
        case answered
        /// `stop()` resumed the suspended connection without an answer; it is closed.
        case abandoned
    }

    var phase = Phase.idle
    /// Bumped at each completion so a late handler result never lands on a later request.
    var generation: UInt64 = 0
    /// When the request (headers and body) must have arrived; `nil` once it has.
    var deadline: ContinuousClock.Instant?
    /// The request being received.
    var request: HTTPRequest?
    /// The handler of the matched route.
    var handler: RouteHandler?
    /// The matched route pattern, for the response observer.
    var route: String?
    /// The answer, once decided.
    var response: HTTPResponse?
    /// The body cap of the matched route (the server's default until routing).
    var bodyLimit: HTTPBodyLimit?
    /// Body bytes thrown away after the cap was exceeded.
    var discardedBytes = 0
    /// Whether the connection is suspended waiting for the handler.
    var suspended = false
}

/// One libmicrohttpd connection: its socket, its peer and the request on it.
final class ConnectionState: @unchecked Sendable {
    // @unchecked Sendable: `connection` is an immutable handle that is only resumed from other
    // threads (MHD_resume_connection is thread-safe while the connection is suspended, and the
    // slot's phase says when it is); all mutable state is inside `slot`'s Mutex.

    /// The libmicrohttpd connection; valid until its close notification.
    let connection: OpaquePointer
    /// The connection's socket, shut down when a request overruns its deadline.
    let socket: Int32
    /// The peer's IP address in text form.
    let peerAddress: String
    /// The client this connection counts against for the per-IP cap; `nil` when not counted.
    let cappedClient: IPAddress?
    /// The request on this connection.
    let slot: Mutex<RequestSlot>

    init(connection: OpaquePointer, socket: Int32, peerAddress: String, cappedClient: IPAddress?,
         deadline: ContinuousClock.Instant) {
        self.connection = connection
        self.socket = socket
        self.peerAddress = peerAddress
        self.cappedClient = cappedClient
        var slot = RequestSlot()
        slot.deadline = deadline
        self.slot = Mutex(slot)
    }
}
