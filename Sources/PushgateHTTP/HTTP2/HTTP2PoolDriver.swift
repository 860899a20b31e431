internal import CLinux
import Foundation
import PushgateCore

/// The I/O of an ``HTTP2ClientPool`` on an ``EpollEventLoop``: turns what happens (inbox
/// commands, socket readiness, frames, time) into ``HTTP2PoolStateMachine`` events and carries
/// out the actions the machine returns, on sockets, nghttp2 sessions and callers'
/// continuations. Decisions are the state machine's.
///
/// A pass runs as a loop job: take the inbox, feed the events, flush the connections, publish
/// the statistics, resume the callers, then re-arm — each connection's descriptor watched for
/// the events it wants, the machine's next timer on a timerfd. A socket's handler reads what
/// arrived and queues one pass for everything that was ready in the same wake-up.
///
/// `@unchecked Sendable`: only ``post(_:)`` may be called from any thread (it touches the inbox
/// and the loop, both thread-safe); everything else runs on the loop thread, in its jobs and
/// handlers.
final class HTTP2PoolDriver: @unchecked Sendable {
    typealias Event = HTTP2PoolStateMachine.Event
    typealias ConnectionID = HTTP2PoolStateMachine.ConnectionID

    let callbacks: NGHTTP2Callbacks
    private let loop: EpollEventLoop
    private let inbox = HTTP2Inbox()
    private let configuration: HTTP2ClientConfiguration
    private let clock: any MonotonicClock
    private let logger: Logger
    private let tlsContext: TLSContext
    private let status: HTTP2PoolStatus
    /// Fires by the machine's next timer; nil once the pool stopped.
    private var timer: EarliestDeadlineTimer?

    private var machine: HTTP2PoolStateMachine
    /// Requests the machine has not finished: what goes on the wire and whom to resume.
    private var submissions: [UInt64: RequestSubmission] = [:]
    private var connections: [ConnectionID: HTTP2Connection] = [:]
    /// Connections whose DNS lookup runs on the ``HostResolver`` thread.
    private var resolving: [ConnectionID: (origin: HTTP2Origin, attempt: Int)] = [:]
    private var events: [Event] = []
    private var actions: [HTTP2PoolStateMachine.Action] = []
    /// Callers to resume once this pass's statistics are published, so a caller that reads them
    /// after its answer never sees figures older than the answer.
    private var outcomes: [(UnsafeContinuation<HTTP2Response, any Error>, Result<HTTP2Response, HTTP2ClientError>)] = []
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    private var commands: [HTTP2Inbox.Command] = []
    private var publishedStatistics: [HTTP2Origin: HTTP2OriginStatistics] = [:]
    /// A handler queued a pass that has not run yet.
    private var passQueued = false
    /// A job is queued to read connections with TLS input already buffered.
    private var bufferedReadQueued = false

    init(loop: EpollEventLoop, configuration: HTTP2ClientConfiguration, clock: any MonotonicClock, logger: Logger,
         tlsContext: TLSContext, callbacks: NGHTTP2Callbacks, status: HTTP2PoolStatus) throws(HTTP2ClientError) {
        self.loop = loop
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.tlsContext = tlsContext
        self.callbacks = callbacks
        self.status = status
        machine = HTTP2PoolStateMachine(configuration: configuration)
        let timer: EarliestDeadlineTimer
        do {
            timer = try EarliestDeadlineTimer()
        } catch {
            throw HTTP2ClientError(.connectFailed, detail: "cannot create the HTTP/2 pool's timer: \(error)")
        }
        self.timer = timer
        loop.watch(timer.descriptor, events: EPOLLIN.rawValue) { [self] _ in
            self.timer?.fired()
            queuePass()
        }
    }

    /// Queues `command` for the next pass (from any thread), and that pass on the loop when the
    /// inbox was empty: a non-empty inbox has its pass queued already. Returns false (and drops
    /// the command) for a `send` after shutdown began, and for anything once the pool stopped.
    @discardableResult
    func post(_ command: HTTP2Inbox.Command) -> Bool {
        guard let wasEmpty = inbox.post(command) else { return false }
        // A pass queued by a socket's handler in the meantime may have taken the commands already.
        if wasEmpty { loop.execute { [self] in if inbox.hasCommands { runPass() } } }
        return true
    }

    // MARK: Passes

    private func queuePass() {
        guard !passQueued else { return }
        passQueued = true
        loop.execute { [self] in if passQueued { runPass() } }
    }

    private func runPass() {
        passQueued = false
        guard timer != nil else { return }  // stopped
        let now = clock.nowMilliseconds
        takeCommands()
        events.append(.tick)
        repeat {
            process(now: now)
            for connection in connections.values { connection.flush() }
        } while !events.isEmpty
        publishStatistics()
        resumeCallers()
        if machine.stopped { return stop() }
        rearm(now: now)
    }

    /// Watches each connection for what it now waits for, reads buffered TLS input without
    /// waiting for the socket, and sets the timer by the machine's next deadline.
    private func rearm(now: Int64) {
        var buffered = false
        for connection in connections.values {
            watch(connection)
            buffered = buffered || connection.hasUnreadInput
        }
        if buffered && !bufferedReadQueued {
            bufferedReadQueued = true
            loop.execute { [self] in readBufferedInput() }
        }
        let next = machine.nextTimer
        guard next != Int64.max, let timer else { return }
        // Capped by the granularity so a manual clock, which moves without waking anyone, is read again.
        let wait = min(max(0, next - now), Int64(max(1, configuration.timerGranularityMilliseconds)))
        timer.arm(by: EarliestDeadlineTimer.now() + UInt64(wait) * 1_000_000)
    }

    private func watch(_ connection: HTTP2Connection) {
        let wanted = connection.epollEvents
        guard wanted != connection.watchedEvents else { return }
        connection.watchedEvents = wanted
        let id = connection.id
        let watched = loop.watch(connection.fileDescriptor, events: wanted) { [self] _ in
            connections[id]?.handleEvents()
            queuePass()
        }
        if !watched {
            connection.close(HTTP2ClientError(.connectionLost, detail: "cannot watch the connection to \(connection.origin): \(Socket.errnoText(errno))"))
            queuePass()
        }
    }

    private func readBufferedInput() {
        bufferedReadQueued = false
        for connection in connections.values where connection.hasUnreadInput { connection.handleEvents() }
        runPass()
    }

    /// The machine stopped (shutdown, every accepted request finished, every connection closed
    /// and so unwatched): stop watching the timer and answer what the inbox still holds. The loop
    /// goes on serving its other owners.
    private func stop() {
        if let timer { loop.unwatch(timer.descriptor) }
        timer = nil
        for command in inbox.finish() {
            switch command {
            case .shutdown(let waiter?): shutdownWaiters.append(waiter)
            case .send(let submission):  // posted before shutdown, taken by no pass
                submission.continuation.resume(throwing: HTTP2ClientError(.shutdown, detail: "the HTTP/2 client is shutting down"))
            case .shutdown(nil), .cancel, .resolved: break
            }
        }
        shutdownWaiters.forEach { $0.resume() }
        shutdownWaiters.removeAll()
    }

    // MARK: Events in

    /// An event from a connection (called from inside its I/O).
    func record(_ event: Event) { events.append(event) }

    func connectionClosed(_ connection: HTTP2Connection, _ error: HTTP2ClientError, sent: Set<UInt64>) {
        // Before the socket closes, so its descriptor number, once reused, is not ours.
        if connection.watchedEvents != 0 { loop.unwatch(connection.fileDescriptor) }
        connections.removeValue(forKey: connection.id)
        events.append(.connectionClosed(connection.id, error, sent: sent))
    }

    func goawayReceived(_ connection: HTTP2Connection, lastStreamID: Int32, errorCode: UInt32) {
        logger.info("HTTP/2 server sent GOAWAY; finishing its accepted streams and moving the rest to a new connection",
                    ["origin": "\(connection.origin)", "connection": "\(connection.id)",
                     "lastStreamId": "\(lastStreamID)", "errorCode": "\(errorCode)"])
        events.append(.goawayReceived(connection.id))
    }

    private func takeCommands() {
        inbox.takeAll(into: &commands)
        for command in commands {
            switch command {
            case .send(let submission):
                submissions[submission.id] = submission
                events.append(.requestPosted(submission.id, submission.origin, deadline: submission.deadline))
            case .cancel(let id):
                events.append(.requestCancelled(id))
            case .resolved(let id, let result):
                resolved(id, result)
            case .shutdown(let waiter):
                if let waiter { shutdownWaiters.append(waiter) }
                events.append(.shutdownRequested)
            }
        }
        commands.removeAll(keepingCapacity: true)
    }

    // MARK: Actions out

    /// Feeds every queued event to the machine, oldest first, and carries out its actions (which
    /// may queue more events).
    private func process(now: Int64) {
        var index = 0
        while index < events.count {
            machine.handle(events[index], now: now, into: &actions)
            index += 1
            for action in actions { execute(action) }
            actions.removeAll(keepingCapacity: true)
        }
        events.removeAll(keepingCapacity: true)
    }

    private func execute(_ action: HTTP2PoolStateMachine.Action) {
        switch action {
        case .openConnection(let id, let origin, let attempt):
            open(id, origin, attempt: attempt)
        case .startStream(let requestID, let connectionID):
            guard let connection = connections[connectionID], let submission = submissions[requestID] else {
                // Closed meanwhile: its closing event, queued already, sends the request elsewhere.
                return
            }
            switch connection.submit(requestID, headers: submission.headers, body: submission.body) {
            case .submitted: break
            case .unavailable:
                events.append(.goawayReceived(connectionID))
                events.append(.streamClosed(connectionID, requestID, .notSent))
            case .failed(let error):
                events.append(.streamClosed(connectionID, requestID, .failed(error)))
            }
        case .resetStream(let requestID, let connectionID):
            connections[connectionID]?.reset(requestID)
        case .sendPing(let id):
            connections[id]?.sendPing()
        case .closeConnection(let id, let error):
            if let connection = connections[id] {
                if let error { connection.close(error) } else { connection.closeGracefully() }
            } else if resolving.removeValue(forKey: id) != nil {
                events.append(.connectionClosed(id, error ?? HTTP2ClientError(.shutdown, detail: "the connection was closed"), sent: []))
            }
        case .finish(let id, let result):
            guard let submission = submissions.removeValue(forKey: id) else { return }
            outcomes.append((submission.continuation, result))
        case .reportConnectionFailure(let origin, let error, let retryIn):
            logger.warning("HTTP/2 connection failed; check the server address and its certificate",
                           ["origin": "\(origin)", "error": "\(error)", "retryInMs": "\(retryIn)"])
        case .stop:
            break
        }
    }

    private func open(_ id: ConnectionID, _ origin: HTTP2Origin, attempt: Int) {
        if let address = SocketAddress(ipLiteral: origin.host, port: origin.port) {
            return connect(id, origin, to: address)
        }
        resolving[id] = (origin, attempt)
        HostResolver.shared.resolve(host: origin.host, port: origin.port) { [self] result in post(.resolved(id, result)) }
    }

    private func resolved(_ id: ConnectionID, _ result: Result<[SocketAddress], TLSError>) {
        guard let (origin, attempt) = resolving.removeValue(forKey: id) else { return }  // timed out meanwhile
        switch result {
        case .success(let addresses):
            connect(id, origin, to: addresses[attempt % addresses.count])
        case .failure(let error):
            events.append(.connectionClosed(id, HTTP2ClientError(.connectFailed, detail: "cannot resolve \(origin.host)", tls: error), sent: []))
        }
    }

    private func connect(_ id: ConnectionID, _ origin: HTTP2Origin, to address: SocketAddress) {
        do {
            connections[id] = try HTTP2Connection(driver: self, id: id, origin: origin, address: address, context: tlsContext,
                                                  maxResponseBodyBytes: configuration.maxResponseBodyBytes)
            logger.debug("opening HTTP/2 connection", ["origin": "\(origin)", "address": "\(address)", "connection": "\(id)"])
        } catch {
            events.append(.connectionClosed(id, error, sent: []))
        }
    }

    /// Shares the per-origin figures with other threads, taking the lock only when they changed.
    private func publishStatistics() {
        let figures = machine.statistics
        if figures != publishedStatistics {
            publishedStatistics = figures
            status.update(figures)
        }
    }

    private func resumeCallers() {
        for (continuation, result) in outcomes { continuation.resume(with: result) }
        outcomes.removeAll(keepingCapacity: true)
    }
}
