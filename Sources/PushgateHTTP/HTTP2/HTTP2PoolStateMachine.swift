/// Everything an ``HTTP2ClientPool`` decides, without I/O: which request goes on which
/// connection, when a connection opens, drains or is declared dead, when a request is retried,
/// times out or fails. The pool's driver (``HTTP2PoolDriver``) feeds it events and carries out the
/// actions it returns; tests drive it directly, with no socket and no thread.
///
/// - Important: never more open streams than the server's SETTINGS_MAX_CONCURRENT_STREAMS; after
///   GOAWAY no new stream on that connection, refused streams retried once on another; a deadline
///   per request, a timed-out stream reset and counted until it closes; PING when idle; back-off
///   between failed connections (docs/concurrency.md, "The HTTP/2 client inside").
struct HTTP2PoolStateMachine {
    typealias RequestID = UInt64
    typealias ConnectionID = Int

    enum Event {
        /// A caller's request reached the loop; `deadline` is on the monotonic clock.
        case requestPosted(RequestID, HTTP2Origin, deadline: Int64)
        /// The caller's task was cancelled. Unknown ids (already finished, or not posted yet) are ignored.
        case requestCancelled(RequestID)
        /// The server's SETTINGS: the connection is ready, with this many concurrent streams.
        case settingsReceived(ConnectionID, maxConcurrentStreams: Int)
        /// Bytes arrived: the peer is alive.
        case bytesReceived(ConnectionID)
        /// GOAWAY (or the connection's stream ids ran out): no new streams; open ones finish.
        case goawayReceived(ConnectionID)
        /// A stream ended, or its request never left (``StreamOutcome/notSent``).
        case streamClosed(ConnectionID, RequestID, StreamOutcome)
        /// The connection is gone (or never came up). Its requests in `sent` may have reached the
        /// server and fail with `error`; its other requests go back to the front of the queue.
        case connectionClosed(ConnectionID, HTTP2ClientError, sent: Set<RequestID>)
        /// Time passed: deadlines, connect timeouts, PINGs, back-off.
        case tick
        /// Refuse nothing more (the inbox does), finish what was accepted, then stop.
        case shutdownRequested
    }

    enum StreamOutcome {
        case answered(HTTP2Response)
        /// REFUSED_STREAM, or above a GOAWAY's last stream id: the server did not process it.
        case refused
        /// The HEADERS never went out.
        case notSent
        case failed(HTTP2ClientError)
    }

    enum Action {
        /// Resolve and connect; report ``Event/settingsReceived`` or ``Event/connectionClosed``.
        /// `attempt` counts the origin's attempts (picks one of several resolved addresses).
        case openConnection(ConnectionID, HTTP2Origin, attempt: Int)
        case startStream(RequestID, on: ConnectionID)
        /// RST_STREAM(CANCEL); the stream stays counted until ``Event/streamClosed``.
        case resetStream(RequestID, on: ConnectionID)
        case sendPing(ConnectionID)
        /// Close and report ``Event/connectionClosed``: with GOAWAY when `error` is nil, at once otherwise.
        case closeConnection(ConnectionID, HTTP2ClientError?)
        /// Resume the caller.
        case finish(RequestID, Result<HTTP2Response, HTTP2ClientError>)
        /// A connection failed before serving anything; the next attempt waits `retryInMilliseconds`.
        case reportConnectionFailure(HTTP2Origin, HTTP2ClientError, retryInMilliseconds: Int64)
        /// Shutdown is complete: every request finished, every connection closing.
        case stop
    }

    private struct Request {
        enum Phase: Equatable {
            case waiting
            case inFlight(ConnectionID)
        }

        /// Its origin's place in `origins`.
        let origin: OriginSlot
        let deadline: Int64
        var phase: Phase = .waiting
        /// Already sent again once after the server refused it.
        var retried = false
    }

    private struct Connection {
        enum Phase: Equatable {
            /// Resolving, connecting, TLS and HTTP/2 handshakes, waiting for the first SETTINGS.
            case opening(deadline: Int64)
            case ready
            /// No new streams; closes once the open ones are done.
            case draining
            /// Asked to close; waiting for ``Event/connectionClosed``.
            case closing
        }

        let origin: OriginSlot
        var phase: Phase
        var maxStreams = 0
        var streams: Set<RequestID> = []
        /// A response completed here: the server accepts us, so the origin needs no back-off.
        var served = false
        var keepAlive: IdlePing

        var isUsable: Bool {
            switch phase {
            case .opening, .ready: return true
            case .draining, .closing: return false
            }
        }

        var freeStreams: Int { phase == .ready ? max(0, maxStreams - streams.count) : 0 }
    }

    private struct Origin {
        let address: HTTP2Origin
        var waiting = RequestQueue()
        /// Requests waiting for a stream (the queue drops finished ones lazily).
        var waitingCount = 0
        /// Oldest first: the first connection fills up before the next.
        var connections: [ConnectionID] = []
        var backoff: ReconnectBackoff
        var attempts = 0

        mutating func enqueue(_ id: RequestID) {
            waiting.append(id)
            waitingCount += 1
        }

        /// Back at the front: it was in flight, so it is older than everything waiting.
        mutating func requeue(_ id: RequestID) {
            waiting.prepend(id)
            waitingCount += 1
        }
    }

    /// An index into `origins`: origins are never forgotten, so it stays valid, and the hot
    /// path hashes the origin's host name once per request instead of at every step.
    private typealias OriginSlot = Int

    // Per-request updates reach `origins` and `connections` in place (an array element, a
    // dictionary index or an optional-chained subscript), never through a copied value: a copy
    // would share the queue's array or the stream set, and writing to it would duplicate them.
    private let configuration: HTTP2ClientConfiguration
    private var requests: [RequestID: Request] = [:]
    private var connections: [ConnectionID: Connection] = [:]
    private var origins: [Origin] = []
    private var originSlots: [HTTP2Origin: OriginSlot] = [:]
    private var nextConnectionID = 1
    /// No request deadline passes before this time.
    private var nextDeadlineCheck = Int64.max
    private var shuttingDown = false
    private(set) var stopped = false

    init(configuration: HTTP2ClientConfiguration) {
        self.configuration = configuration
    }

    // MARK: Events

    mutating func handle(_ event: Event, now: Int64, into actions: inout [Action]) {
        guard !stopped else { return }
        switch event {
        case .requestPosted(let id, let origin, let deadline):
            post(id, origin, deadline: deadline, now: now, into: &actions)
        case .requestCancelled(let id):
            abort(id, HTTP2ClientError(.cancelled, detail: "the calling task was cancelled"), into: &actions)
        case .settingsReceived(let id, let limit):
            guard var connection = connections[id] else { return }
            connection.maxStreams = limit
            if case .opening = connection.phase {
                connection.phase = .ready
                connection.keepAlive = IdlePing(configuration: configuration, now: now)
            }
            connections[id] = connection
            dispatch(connection.origin, now: now, into: &actions)
        case .bytesReceived(let id):
            connections[id]?.keepAlive.received(now: now)
        case .goawayReceived(let id):
            guard let connection = connections[id], connection.phase != .closing else { return }
            connections[id]?.phase = .draining
            closeIfDrained(id, into: &actions)
            dispatch(connection.origin, now: now, into: &actions)
        case .streamClosed(let connectionID, let requestID, let outcome):
            streamClosed(connectionID, requestID, outcome, now: now, into: &actions)
        case .connectionClosed(let id, let error, let sent):
            connectionClosed(id, error, sent: sent, now: now, into: &actions)
        case .tick:
            tick(now: now, into: &actions)
        case .shutdownRequested:
            shuttingDown = true
        }
        stopIfDone(into: &actions)
    }

    private mutating func post(_ id: RequestID, _ origin: HTTP2Origin, deadline: Int64, now: Int64, into actions: inout [Action]) {
        let slot = self.slot(of: origin)
        guard origins[slot].waitingCount < configuration.maxQueuedRequestsPerOrigin else {
            let detail = "\(configuration.maxQueuedRequestsPerOrigin) requests already wait for \(origin)"
            actions.append(.finish(id, .failure(HTTP2ClientError(.queueFull, detail: detail))))
            return
        }
        requests[id] = Request(origin: slot, deadline: deadline)
        origins[slot].enqueue(id)
        nextDeadlineCheck = min(nextDeadlineCheck, deadline)
        dispatch(slot, now: now, into: &actions)
    }

    private mutating func slot(of origin: HTTP2Origin) -> OriginSlot {
        if let slot = originSlots[origin] { return slot }
        origins.append(Origin(address: origin, backoff: ReconnectBackoff(configuration: configuration)))
        originSlots[origin] = origins.count - 1
        return origins.count - 1
    }

    private mutating func streamClosed(_ connectionID: ConnectionID, _ requestID: RequestID, _ outcome: StreamOutcome, now: Int64,
                                       into actions: inout [Action]) {
        guard let index = connections.index(forKey: connectionID) else { return }
        connections.values[index].streams.remove(requestID)
        let origin = connections.values[index].origin
        if case .answered = outcome, !connections.values[index].served {
            connections.values[index].served = true
            origins[origin].backoff.recordSuccess()
        }
        // A request that timed out or was cancelled is already finished: only its stream slot mattered.
        if let request = requests[requestID], request.phase == .inFlight(connectionID) {
            switch outcome {
            case .answered(let response):
                finish(requestID, .success(response), into: &actions)
            case .refused where request.retried:
                finish(requestID, .failure(HTTP2ClientError(.refused, detail: "\(origins[request.origin].address) refused the request twice")), into: &actions)
            case .refused:
                requeue(requestID, countsAsRetry: true)
            case .notSent:
                requeue(requestID, countsAsRetry: false)
            case .failed(let error):
                finish(requestID, .failure(error), into: &actions)
            }
        }
        closeIfDrained(connectionID, into: &actions)
        dispatch(origin, now: now, into: &actions)
    }

    private mutating func connectionClosed(_ id: ConnectionID, _ error: HTTP2ClientError, sent: Set<RequestID>, now: Int64,
                                           into actions: inout [Action]) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        origins[connection.origin].connections.removeAll { $0 == id }
        // Highest id first, so that the requeued requests end up at the front oldest first.
        for requestID in connection.streams.sorted(by: >) where requests[requestID]?.phase == .inFlight(id) {
            if sent.contains(requestID) {
                finish(requestID, .failure(error.afterWrite()), into: &actions)
            } else {
                requeue(requestID, countsAsRetry: false)
            }
        }
        if !connection.served && !shuttingDown { connectionAttemptFailed(connection.origin, error, now: now, into: &actions) }
        dispatch(connection.origin, now: now, into: &actions)
    }

    /// A connection failed before serving anything: back off, and fail the waiting requests when
    /// no other connection can serve them (they would only wait out their deadlines).
    private mutating func connectionAttemptFailed(_ origin: OriginSlot, _ error: HTTP2ClientError, now: Int64, into actions: inout [Action]) {
        origins[origin].backoff.recordFailure(now: now)
        actions.append(.reportConnectionFailure(origins[origin].address, error,
                                                retryInMilliseconds: max(0, origins[origin].backoff.notBefore - now)))
        guard !origins[origin].connections.contains(where: { connections[$0]?.isUsable == true }) else { return }
        while let id = origins[origin].waiting.removeFirst() {
            if requests[id]?.phase == .waiting { finish(id, .failure(error), into: &actions) }
        }
        origins[origin].waitingCount = 0
    }

    private mutating func tick(now: Int64, into actions: inout [Action]) {
        if now >= nextDeadlineCheck { expireDeadlines(now: now, into: &actions) }
        for (id, connection) in connections {
            switch connection.phase {
            case .opening(let deadline) where now >= deadline:
                close(id, HTTP2ClientError(.connectFailed, detail: "no HTTP/2 connection to \(origins[connection.origin].address) within the connect timeout"),
                      into: &actions)
            case .opening, .closing:
                break
            case .ready, .draining:
                switch connections[id]!.keepAlive.tick(now: now) {
                case .none: break
                case .sendPing: actions.append(.sendPing(id))
                case .dead: close(id, HTTP2ClientError(.connectionLost, detail: "\(origins[connection.origin].address) did not answer a PING"), into: &actions)
                }
            }
        }
        // Back-off ended for an origin whose requests wait for a connection.
        for slot in origins.indices where origins[slot].waitingCount > 0 && origins[slot].backoff.allowsAttempt(now: now) {
            dispatch(slot, now: now, into: &actions)
        }
    }

    /// - Important: each request has a deadline; a timed-out stream is reset, not leaked (docs/concurrency.md, "The HTTP/2 client inside").
    private mutating func expireDeadlines(now: Int64, into actions: inout [Action]) {
        var next = Int64.max
        var expired: [RequestID] = []
        for (id, request) in requests {
            if request.deadline <= now { expired.append(id) } else { next = min(next, request.deadline) }
        }
        nextDeadlineCheck = next
        for id in expired.sorted() {
            guard let origin = requests[id]?.origin else { continue }
            abort(id, HTTP2ClientError(.timeout, detail: "no response from \(origins[origin].address) before the deadline"), into: &actions)
        }
    }

    // MARK: Requests

    /// Deadline or cancellation: the caller gets `error` now; an open stream is reset.
    private mutating func abort(_ id: RequestID, _ error: HTTP2ClientError, into actions: inout [Action]) {
        guard let request = requests[id] else { return }
        switch request.phase {
        case .waiting:
            origins[request.origin].waitingCount -= 1
            finish(id, .failure(error), into: &actions)
        case .inFlight(let connection):
            actions.append(.resetStream(id, on: connection))
            finish(id, .failure(error.afterWrite()), into: &actions)
        }
    }

    private mutating func finish(_ id: RequestID, _ result: Result<HTTP2Response, HTTP2ClientError>, into actions: inout [Action]) {
        requests.removeValue(forKey: id)
        actions.append(.finish(id, result))
    }

    /// Puts an in-flight request that did not reach the server back at the front of its queue.
    private mutating func requeue(_ id: RequestID, countsAsRetry: Bool) {
        guard var request = requests[id] else { return }
        request.phase = .waiting
        if countsAsRetry { request.retried = true }
        requests[id] = request
        origins[request.origin].requeue(id)
    }

    // MARK: Connections

    /// Fills free streams with waiting requests (oldest first, first connection first), and opens
    /// a connection only when every usable one is saturated.
    private mutating func dispatch(_ origin: OriginSlot, now: Int64, into actions: inout [Action]) {
        guard origins[origin].waitingCount > 0 else { return }
        for connectionID in origins[origin].connections {
            guard let connection = connections.index(forKey: connectionID) else { continue }
            var free = connections.values[connection].freeStreams
            while free > 0, let requestID = origins[origin].waiting.removeFirst() {
                // Finished while waiting: already gone.
                guard let request = requests.index(forKey: requestID), requests.values[request].phase == .waiting else { continue }
                origins[origin].waitingCount -= 1
                requests.values[request].phase = .inFlight(connectionID)
                connections.values[connection].streams.insert(requestID)
                actions.append(.startStream(requestID, on: connectionID))
                free -= 1
            }
            if origins[origin].waitingCount == 0 { break }
        }
        guard origins[origin].waitingCount > 0 else { return origins[origin].waiting.removeAll() }
        openConnectionIfAllowed(origin, now: now, into: &actions)
    }

    private mutating func openConnectionIfAllowed(_ origin: OriginSlot, now: Int64, into actions: inout [Action]) {
        guard origins[origin].backoff.allowsAttempt(now: now) else { return }
        var usable = 0
        for id in origins[origin].connections {
            guard let connection = connections[id] else { continue }
            switch connection.phase {
            // Wait for it rather than open another; an unserved one closing may yet mean back-off.
            case .opening: return
            case .closing where !connection.served: return
            case .ready: usable += 1
            case .draining, .closing: break
            }
        }
        guard usable < max(1, configuration.maxConnectionsPerOrigin) else { return }
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = Connection(origin: origin, phase: .opening(deadline: now + configuration.connectTimeoutMilliseconds),
                                     keepAlive: IdlePing(configuration: configuration, now: now))
        origins[origin].connections.append(id)
        actions.append(.openConnection(id, origins[origin].address, attempt: origins[origin].attempts))
        origins[origin].attempts += 1
    }

    private mutating func close(_ id: ConnectionID, _ error: HTTP2ClientError?, into actions: inout [Action]) {
        guard connections[id] != nil, connections[id]?.phase != .closing else { return }
        connections[id]?.phase = .closing
        actions.append(.closeConnection(id, error))
    }

    private mutating func closeIfDrained(_ id: ConnectionID, into actions: inout [Action]) {
        guard let connection = connections[id], connection.phase == .draining, connection.streams.isEmpty else { return }
        close(id, nil, into: &actions)
    }

    private mutating func stopIfDone(into actions: inout [Action]) {
        guard shuttingDown, requests.isEmpty else { return }
        for id in connections.keys.sorted() { close(id, nil, into: &actions) }
        stopped = true
        actions.append(.stop)
    }

    // MARK: Reading the state

    /// When ``Event/tick`` next has work (`Int64.max`: nothing timed).
    var nextTimer: Int64 {
        var next = nextDeadlineCheck
        for connection in connections.values {
            switch connection.phase {
            case .opening(let deadline): next = min(next, deadline)
            case .ready, .draining: next = min(next, connection.keepAlive.nextDue)
            case .closing: break
            }
        }
        // Requests waiting out a back-off with no connection to wait for.
        for state in origins where state.waitingCount > 0 && !state.connections.contains(where: { connections[$0]?.isUsable == true }) {
            next = min(next, state.backoff.notBefore)
        }
        return next
    }

    /// Connections (opening, open, draining or closing), open streams and waiting requests per origin.
    var statistics: [HTTP2Origin: HTTP2OriginStatistics] {
        var figures: [HTTP2Origin: HTTP2OriginStatistics] = [:]
        for state in origins {
            let open = state.connections.compactMap { connections[$0] }
            figures[state.address] = HTTP2OriginStatistics(connections: open.count, openStreams: open.reduce(0) { $0 + $1.streams.count },
                                                           waitingRequests: state.waitingCount)
        }
        return figures
    }
}

/// A FIFO of waiting request ids that can also put one back at the front (for retries).
struct RequestQueue {
    private var items: [UInt64] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(_ id: UInt64) { items.append(id) }

    mutating func prepend(_ id: UInt64) {
        if head > 0 {
            head -= 1
            items[head] = id
        } else {
            items.insert(id, at: 0)
        }
    }

    mutating func removeFirst() -> UInt64? {
        guard !isEmpty else { return nil }
        let id = items[head]
        head += 1
        if head == items.count {
            removeAll()
        } else if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return id
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
