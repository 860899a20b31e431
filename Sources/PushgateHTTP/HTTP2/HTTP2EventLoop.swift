import Foundation
import PushgateCore

/// The I/O thread of an ``HTTP2ClientPool``: takes requests from the inbox, spreads them over
/// connections, drives every connection with poll(2), enforces deadlines, keep-alive and back-off.
/// Everything in here runs on that one thread.
final class HTTP2EventLoop {
    let callbacks: NGHTTP2Callbacks
    private let inbox: HTTP2Inbox
    private let configuration: HTTP2ClientConfiguration
    private let clock: any WallClock
    private let logger: Logger
    private let tlsContext: TLSContext
    private let status: HTTP2PoolStatus

    private var origins: [HTTP2Origin: OriginState] = [:]
    private var requests: [UInt64: PendingRequest] = [:]
    /// No request deadline passes before this time.
    private var nextDeadlineCheck = Int64.max
    private var shuttingDown = false
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    private var connectionSerial = 0
    private var commands: [HTTP2Inbox.Command] = []
    private var publishedStatistics: [HTTP2Origin: HTTP2OriginStatistics] = [:]
    private var pollDescriptors: [pollfd] = []
    private var polledConnections: [HTTP2Connection] = []

    init(inbox: HTTP2Inbox, configuration: HTTP2ClientConfiguration, clock: any WallClock, logger: Logger,
         tlsContext: TLSContext, callbacks: NGHTTP2Callbacks, status: HTTP2PoolStatus) {
        self.inbox = inbox
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.tlsContext = tlsContext
        self.callbacks = callbacks
        self.status = status
    }

    /// Runs until shutdown was requested and every accepted request has finished.
    func run() {
        while true {
            let now = clock.nowMilliseconds
            takeCommands(now: now)
            runTimers(now: now)
            // Before dispatching: a connection that just failed must count toward back-off first.
            reapClosedConnections(now: now)
            for state in origins.values { dispatch(state, now: now) }
            for state in origins.values { state.connections.forEach { $0.flush() } }
            publishStatistics()
            if shuttingDown && requests.isEmpty { break }
            waitForEvents()
        }
        for state in origins.values { state.connections.forEach { $0.closeGracefully() } }
        origins.removeAll()
        publishStatistics()
        for command in inbox.finish() {
            if case .shutdown(let waiter?) = command { shutdownWaiters.append(waiter) }
        }
        shutdownWaiters.forEach { $0.resume() }
    }

    // MARK: Inbox

    private func takeCommands(now: Int64) {
        inbox.takeAll(into: &commands)
        for command in commands {
            switch command {
            case .send(let submission): accept(PendingRequest(submission))
            case .cancel(let id):
                if let request = requests[id] { abort(request, HTTP2ClientError(.cancelled, detail: "the calling task was cancelled")) }
            case .resolved(let origin, let result): resolved(origin, result, now: now)
            case .shutdown(let waiter):
                shuttingDown = true
                if let waiter { shutdownWaiters.append(waiter) }
            }
        }
        commands.removeAll(keepingCapacity: true)
    }

    private func accept(_ request: PendingRequest) {
        let state = originState(request.origin)
        guard state.waitingCount < configuration.maxQueuedRequestsPerOrigin else {
            request.finish(.failure(HTTP2ClientError(.queueFull, detail: "\(configuration.maxQueuedRequestsPerOrigin) requests already wait for \(request.origin)")))
            return
        }
        requests[request.id] = request
        state.waiting.append(request)
        state.waitingCount += 1
        nextDeadlineCheck = min(nextDeadlineCheck, request.deadline)
    }

    private func originState(_ origin: HTTP2Origin) -> OriginState {
        if let state = origins[origin] { return state }
        let state = OriginState(origin: origin, backoff: ReconnectBackoff(baseDelay: configuration.reconnectBaseDelayMilliseconds,
                                                                          maxDelay: configuration.reconnectMaxDelayMilliseconds))
        origins[origin] = state
        return state
    }

    // MARK: Request outcomes (also called by connections)

    /// Finishes a request and forgets it.
    func complete(_ request: PendingRequest, _ result: Result<HTTP2Response, HTTP2ClientError>) {
        requests.removeValue(forKey: request.id)
        request.finish(result)
    }

    /// Puts a request that did not reach the server back at the front of its origin's queue.
    func requeue(_ request: PendingRequest, countsAsRetry: Bool) {
        guard !request.isFinished, let state = origins[request.origin] else { return }
        request.prepareToResend(countsAsRetry: countsAsRetry)
        state.waiting.prepend(request)
        state.waitingCount += 1
    }

    /// The server refused a stream without processing it: send it again once, then give up.
    ///
    /// - Important: GOAWAY → streams above last-stream-id are retried on a new connection (relay-protocol.md §7).
    func retryRefused(_ request: PendingRequest) {
        if request.retried {
            complete(request, .failure(HTTP2ClientError(.refused, detail: "\(request.origin) refused the request twice")))
        } else {
            requeue(request, countsAsRetry: true)
        }
    }

    /// Deadline or cancellation: the caller gets `error` now; an open stream is reset.
    private func abort(_ request: PendingRequest, _ error: HTTP2ClientError) {
        switch request.phase {
        case .waiting: origins[request.origin]?.waitingCount -= 1
        case .inFlight(let connection, let streamID): connection.reset(streamID: streamID)
        case .finished: return
        }
        complete(request, .failure(error))
    }

    func connectionServedResponse(_ connection: HTTP2Connection) {
        origins[connection.origin]?.backoff.recordSuccess()
    }

    func goawayReceived(_ connection: HTTP2Connection, lastStreamID: Int32, errorCode: UInt32) {
        logger.info("HTTP/2 server sent GOAWAY; finishing its accepted streams and moving the rest to a new connection",
                    ["origin": "\(connection.origin)", "connection": "\(connection.serial)",
                     "lastStreamId": "\(lastStreamID)", "errorCode": "\(errorCode)"])
    }

    // MARK: Dispatch and connections

    /// Fills free streams with waiting requests (oldest first, first connection first), and opens
    /// a connection only when every usable one is saturated.
    private func dispatch(_ state: OriginState, now: Int64) {
        state.waiting.dropFinishedPrefix()
        guard !state.waiting.isEmpty else { return }
        for connection in state.connections {
            var free = connection.freeStreams
            while free > 0, let request = state.waiting.removeFirst() {
                guard !request.isFinished else { continue }
                state.waitingCount -= 1
                switch connection.submit(request) {
                case .submitted:
                    free -= 1
                case .unavailable:
                    state.waiting.prepend(request)
                    state.waitingCount += 1
                    free = 0
                case .failed(let error):
                    complete(request, .failure(error))
                }
            }
            state.waiting.dropFinishedPrefix()
            if state.waiting.isEmpty { return }
        }
        openConnectionIfAllowed(state, now: now)
    }

    private func openConnectionIfAllowed(_ state: OriginState, now: Int64) {
        guard !state.isOpeningConnection,
              state.usableConnectionCount < max(1, configuration.maxConnectionsPerOrigin),
              state.backoff.allowsAttempt(now: now) else { return }
        let origin = state.origin
        if let address = SocketAddress(ipLiteral: origin.host, port: origin.port) {
            connect(state, to: address, now: now)
            return
        }
        state.resolving = true
        let inbox = self.inbox
        let resolver = Thread {
            let result = Result { () throws(TLSError) -> [SocketAddress] in
                do { return try SocketAddress.resolve(host: origin.host, port: origin.port) } catch let error as TLSError { throw error } catch {
                    throw TLSError(.connectFailed, operation: "resolve \(origin.host)", detail: "\(error)")
                }
            }
            inbox.post(.resolved(origin, result))
        }
        resolver.name = "pushgate-h2-resolve"
        resolver.start()
    }

    private func resolved(_ origin: HTTP2Origin, _ result: Result<[SocketAddress], TLSError>, now: Int64) {
        guard let state = origins[origin] else { return }
        state.resolving = false
        switch result {
        case .success(let addresses):
            connect(state, to: addresses[state.attempts % addresses.count], now: now)
        case .failure(let error):
            connectionAttemptFailed(state, HTTP2ClientError(.connectFailed, detail: "cannot resolve \(origin.host)", tls: error), now: now)
        }
    }

    private func connect(_ state: OriginState, to address: SocketAddress, now: Int64) {
        state.attempts += 1
        connectionSerial += 1
        do {
            let connection = try HTTP2Connection(loop: self, origin: state.origin, serial: connectionSerial, address: address,
                                                 context: tlsContext, configuration: configuration, now: now)
            state.connections.append(connection)
            logger.debug("opening HTTP/2 connection", ["origin": "\(state.origin)", "address": "\(address)", "connection": "\(connectionSerial)"])
        } catch {
            connectionAttemptFailed(state, error as? HTTP2ClientError ?? HTTP2ClientError(.connectFailed, detail: "\(error)"), now: now)
        }
    }

    /// A connection failed before serving anything: back off, and fail the waiting requests when
    /// no other connection can serve them (they would only wait out their deadlines).
    private func connectionAttemptFailed(_ state: OriginState, _ error: HTTP2ClientError, now: Int64) {
        state.backoff.recordFailure(now: now)
        logger.warning("HTTP/2 connection failed; check the server address and its certificate",
                       ["origin": "\(state.origin)", "error": "\(error)",
                        "retryInMs": "\(max(0, state.backoff.notBefore - now))"])
        guard state.usableConnectionCount == 0 else { return }
        for request in state.waiting.removeAll() where !request.isFinished {
            complete(request, .failure(error))
        }
        state.waitingCount = 0
    }

    private func reapClosedConnections(now: Int64) {
        for state in origins.values where state.connections.contains(where: { $0.state == .closed }) {
            let closed = state.connections.filter { $0.state == .closed }
            state.connections.removeAll { $0.state == .closed }
            for connection in closed {
                if connection.servedResponse || shuttingDown {
                    if let error = connection.closeError {
                        logger.info("HTTP/2 connection closed", ["origin": "\(state.origin)", "connection": "\(connection.serial)", "reason": "\(error)"])
                    }
                } else {
                    connectionAttemptFailed(state, connection.closeError
                        ?? HTTP2ClientError(.connectFailed, detail: "\(state.origin) closed the connection before answering"), now: now)
                }
            }
        }
    }

    /// Shares the per-origin figures with other threads, taking the lock only when they changed.
    private func publishStatistics() {
        var figures: [HTTP2Origin: HTTP2OriginStatistics] = [:]
        for (origin, state) in origins {
            figures[origin] = HTTP2OriginStatistics(connections: state.connections.count,
                                                    openStreams: state.connections.reduce(0) { $0 + $1.openStreams },
                                                    waitingRequests: state.waitingCount)
        }
        if figures != publishedStatistics {
            publishedStatistics = figures
            status.update(figures)
        }
    }

    // MARK: Time

    private func runTimers(now: Int64) {
        if now >= nextDeadlineCheck { expireDeadlines(now: now) }
        for state in origins.values { state.connections.forEach { $0.tick(now: now) } }
    }

    /// - Important: each request has a deadline; a timed-out stream is reset, not leaked (relay-protocol.md §7).
    private func expireDeadlines(now: Int64) {
        var next = Int64.max
        var expired: [PendingRequest] = []
        for request in requests.values {
            if request.deadline <= now { expired.append(request) } else { next = min(next, request.deadline) }
        }
        nextDeadlineCheck = next
        for request in expired.sorted(by: { $0.id < $1.id }) {
            abort(request, HTTP2ClientError(.timeout, detail: "no response from \(request.origin) before the deadline"))
        }
    }

    /// Sleeps in poll(2) until a socket or the inbox is ready, or the next timer is due.
    private func waitForEvents() {
        let now = clock.nowMilliseconds
        pollDescriptors.removeAll(keepingCapacity: true)
        polledConnections.removeAll(keepingCapacity: true)
        pollDescriptors.append(pollfd(fd: inbox.waker.readDescriptor, events: Int16(POLLIN), revents: 0))
        var wakeAt = nextDeadlineCheck
        var immediate = false
        for state in origins.values {
            for connection in state.connections where connection.pollEvents != 0 {
                pollDescriptors.append(pollfd(fd: connection.fileDescriptor, events: connection.pollEvents, revents: 0))
                polledConnections.append(connection)
                wakeAt = min(wakeAt, connection.nextTimer)
                immediate = immediate || connection.hasUnreadInput
            }
            if !state.waiting.isEmpty && state.usableConnectionCount == 0 {
                wakeAt = min(wakeAt, state.backoff.notBefore)
            }
        }
        let granularity = Int64(max(1, configuration.timerGranularityMilliseconds))
        let timeout = immediate ? 0 : Int32(max(0, min(wakeAt - now, granularity)))
        let ready = poll(&pollDescriptors, nfds_t(pollDescriptors.count), timeout)
        guard ready > 0 || immediate else { return }
        if pollDescriptors[0].revents != 0 { inbox.waker.drain() }
        let eventTime = clock.nowMilliseconds
        for (index, connection) in polledConnections.enumerated()
        where pollDescriptors[index + 1].revents != 0 || connection.hasUnreadInput {
            connection.handleEvents(now: eventTime)
        }
    }
}
