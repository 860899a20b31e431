internal import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's shared state and request flow. libmicrohttpd's callbacks reach it through an
/// `Unmanaged` pointer that ``HTTPServer`` retains for the daemon's life.
///
/// Per request: the first callback routes it and runs the pre-body hook and the Content-Length
/// check; body callbacks append up to the cap; the final callback (no upload data) starts the
/// handler in a task that runs on the calling thread until it first suspends. A handler that
/// finishes there is answered at once; otherwise the connection is suspended and the task's
/// completion resumes it so the next callback queues the answer.
/// - Important: protocol/signed-relay.md §2 — route and method, then the pre-body hook (per-IP rate
///   limit), then the body size, each before the body is read.
final class ServerCore: Sendable {
    /// What the access callback does after one step of a request.
    private enum Step {
        case proceed
        case respond(HTTPResponse, route: String?)
        case run(HTTPRequest, RouteHandler, generation: UInt64)
        case close
    }

    let configuration: HTTPServerConfiguration
    let router: Router
    let preBody: HTTPServer.PreBodyHook?
    let onResponse: HTTPServer.ResponseObserver?
    /// Called after a connection was resumed: the daemon has no threads of its own, so its
    /// loop must then run it.
    private let resumed: @Sendable () -> Void
    /// Where ``RouteHandler/resumesInline`` handlers continue: the server's loop.
    private let loopExecutor: LoopTaskExecutor
    let inFlight = InFlightTracker()
    private let connections = ConnectionRegistry()
    /// `nil` without a per-IP connection cap.
    private let connectionsPerClient: ConnectionsPerClient?
    private let stopping = Atomic<Bool>(false)
    private let quiescing = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, router: Router,
         preBody: HTTPServer.PreBodyHook?, onResponse: HTTPServer.ResponseObserver?, loop: EpollEventLoop,
         resumed: @escaping @Sendable () -> Void) {
        self.resumed = resumed
        loopExecutor = LoopTaskExecutor(loop: loop)
        self.configuration = configuration
        self.router = router
        self.preBody = preBody
        self.onResponse = onResponse
        connectionsPerClient = configuration.perIPConnectionLimit > 0
            ? ConnectionsPerClient(limit: configuration.perIPConnectionLimit, ipv6PrefixBits: configuration.clientIPv6PrefixBits,
                                   uncapped: configuration.uncappedPeers)
            : nil
    }

    /// Bytes of an over-cap chunked body read and thrown away before the connection is cut:
    /// enough for a client that sends its whole body before reading to see the 413.
    private static func discardLimit(_ cap: Int) -> Int { max(cap, 64 * 1024) }

    // MARK: Request flow (libmicrohttpd threads)

    /// One access callback.
    func access(_ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = requestContext.pointee else {
            // First call: headers complete. The request context is the connection's state,
            // which the connection's own context keeps alive.
            guard let raw = pg_mhd_socket_context(connection) else { return .NO }
            requestContext.pointee = raw
            inFlight.enter()
            let state = Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()
            let step = begin(state, connection: connection,
                             url: String(cString: url), method: String(cString: method))
            return perform(step, on: state)
        }
        let state = Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let accepted = receive(UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee), on: state)
            uploadSize.pointee = 0
            return accepted ? .YES : .NO
        }
        return perform(finish(state), on: state)
    }

    private func begin(_ state: ConnectionState, connection: OpaquePointer, url: String, method: String) -> Step {
        var request = HTTPRequest(
            method: method, path: url,
            query: MHDRequestFields.query(of: connection), headers: MHDRequestFields.headers(of: connection),
            peerAddress: state.peerAddress)
        let framing = BodyFraming(request.headers)
        var handler: RouteHandler?
        var rejection: HTTPResponse?
        var limit = configuration.bodyLimit(route: nil)
        switch framing.isAmbiguous ? .response(HTTPResponse(status: 400)) : router.match(method: method, path: url) {
        case .response(let response):
            rejection = response
        case .route(let pattern, let parameters, let routeHandler):
            request.route = pattern
            request.parameters = parameters
            handler = routeHandler
            limit = configuration.bodyLimit(route: pattern)
            rejection = preBody?(request)
            if rejection == nil, let declared = framing.declaredLength, declared > limit.maxBytes {
                rejection = limit.tooLargeResponse
            }
        }
        let route = request.route
        if let rejection, framing.hasBody {
            // Answer without reading the body; libmicrohttpd closes the connection afterwards.
            state.slot.withLock { slot in
                slot.phase = .answered
                slot.deadline = nil
            }
            return .respond(rejection, route: route)
        }
        if rejection == nil, let declared = framing.declaredLength { request.body.reserveCapacity(declared) }
        state.slot.withLock { slot in
            slot.phase = .receiving
            slot.route = route
            slot.bodyLimit = limit
            slot.handler = handler
            slot.response = rejection
            slot.request = rejection == nil ? request : nil
        }
        return .proceed
    }

    /// Appends body bytes up to the cap. Past it the request is dropped and the 413 decided;
    /// further bytes are discarded until ``discardLimit``, then the connection is cut (`false`).
    private func receive(_ bytes: UnsafeRawBufferPointer, on state: ConnectionState) -> Bool {
        state.slot.withLock { slot in
            let limit = slot.bodyLimit ?? configuration.bodyLimit(route: nil)
            if slot.response != nil {
                slot.discardedBytes += bytes.count
                return slot.discardedBytes <= Self.discardLimit(limit.maxBytes)
            }
            guard let received = slot.request?.body.count else { return false }
            if received + bytes.count > limit.maxBytes {
                slot.request = nil
                slot.handler = nil
                slot.response = limit.tooLargeResponse
                slot.discardedBytes = bytes.count
                return true
            }
            slot.request?.body.append(contentsOf: bytes)
            return true
        }
    }

    /// The final call (no more upload data), and again after the handler's task resumed the connection.
    private func finish(_ state: ConnectionState) -> Step {
        state.slot.withLock { slot -> Step in
            switch slot.phase {
            case .receiving:
                slot.deadline = nil
                if let response = slot.response {
                    slot.phase = .answered
                    return .respond(response, route: slot.route)
                }
                // Checked under the slot lock, so `abandonHandlers` sees every handler started.
                guard !stopping.load(ordering: .sequentiallyConsistent),
                      let request = slot.request.take(), let handler = slot.handler else { return .close }
                slot.phase = .handling
                return .run(request, handler, generation: slot.generation)
            case .answered:
                guard let response = slot.response else { return .close }
                return .respond(response, route: slot.route)
            case .idle, .handling, .abandoned:
                return .close
            }
        }
    }

    private func perform(_ step: Step, on state: ConnectionState) -> MHD_Result {
        switch step {
        case .proceed:
            return .YES
        case .close:
            return .NO
        case .respond(let response, let route):
            return queue(response, route: route, on: state.connection)
        case .run(let request, let handler, let generation):
            let executor: (any TaskExecutor)? = handler.resumesInline ? loopExecutor : nil
            Task.immediate(executorPreference: executor) { [self] in
                let response = await handler(request)
                complete(state, generation: generation, response: response)
            }
            return perform(afterStart(state), on: state)
        }
    }

    /// Right after a handler's task started: answer if it already finished, else suspend the
    /// connection until ``complete(_:generation:response:)`` resumes it.
    private func afterStart(_ state: ConnectionState) -> Step {
        state.slot.withLock { slot -> Step in
            switch slot.phase {
            case .answered:
                guard let response = slot.response else { return .close }
                return .respond(response, route: slot.route)
            case .handling:
                slot.suspended = true
                MHD_suspend_connection(state.connection)
                return .proceed
            case .idle, .receiving, .abandoned:
                return .close
            }
        }
    }

    /// A handler finished: keep its answer, and resume the connection if it was suspended (any thread).
    private func complete(_ state: ConnectionState, generation: UInt64, response: HTTPResponse) {
        let resume = state.slot.withLock { slot -> Bool in
            guard slot.generation == generation, slot.phase == .handling else { return false }
            slot.phase = .answered
            slot.response = response
            return slot.suspended
        }
        if resume {
            MHD_resume_connection(state.connection)
            resumed()
        }
    }

    private func queue(_ response: HTTPResponse, route: String?, on connection: OpaquePointer) -> MHD_Result {
        guard MHDResponse.queue(response, defaults: configuration.defaultHeaders,
                                  closing: quiescing.load(ordering: .relaxed), on: connection,
                                  logger: configuration.logger) else { return .NO }
        onResponse?(route, response.status)
        return .YES
    }

    // MARK: Connection and request lifecycle (libmicrohttpd threads)

    /// A connection was accepted: its state, registered for the deadline sweep and `stop()`.
    func connectionStarted(_ connection: OpaquePointer) -> ConnectionState {
        let address = pg_mhd_client_address(connection)
        let peer = address.flatMap(SocketAddress.numericHost(of:)) ?? "unknown"
        let client = address.flatMap { connectionsPerClient?.client(of: $0) }
        if let client { connectionsPerClient?.opened(client) }
        let state = ConnectionState(
            connection: connection, socket: pg_mhd_connection_socket(connection), peerAddress: peer,
            cappedClient: client, deadline: .now + configuration.requestTimeout)
        connections.insert(state)
        return state
    }

    /// A connection is about to be closed (its socket is still open).
    func connectionClosed(_ state: ConnectionState) {
        connections.remove(state)
        if let client = state.cappedClient { connectionsPerClient?.closed(client) }
    }

    /// Whether a new connection from `peer` stays within the per-IP connection cap.
    func admits(_ peer: UnsafePointer<sockaddr>) -> Bool { connectionsPerClient?.admits(peer) ?? true }

    /// A request ended (answered, or cut off): the connection waits for the next one.
    func requestCompleted(_ state: ConnectionState) {
        let deadline = ContinuousClock.now + configuration.requestTimeout
        state.slot.withLock { slot in
            slot = RequestSlot(generation: slot.generation + 1, deadline: deadline)
        }
        inFlight.leave()
    }

    // MARK: Control (any thread)

    /// How often overdue requests are looked for: a quarter of the request timeout, between 25 ms and 1 s.
    var sweepPeriod: Duration { max(min(configuration.requestTimeout / 4, .seconds(1)), .milliseconds(25)) }

    /// Shuts down connections whose request is overdue (on the server's loop, every ``sweepPeriod``).
    func sweepDeadlines() { connections.sweepDeadlines() }

    /// From now on responses carry `connection: close`.
    func markQuiescing() { quiescing.store(true, ordering: .relaxed) }

    /// Gives up on every running handler so the daemon can stop: suspended connections are
    /// resumed unanswered and closed, late results dropped. Requests reaching their final call
    /// afterwards are closed. Returns how many handlers were cut off.
    func abandonHandlers() -> Int {
        // Set first: `finish` checks it under the slot lock the registry takes next.
        stopping.store(true, ordering: .sequentiallyConsistent)
        return connections.abandonHandlers()
    }
}
