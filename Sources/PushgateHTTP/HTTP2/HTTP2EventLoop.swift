import Foundation
import PushgateCore

/// The I/O thread of an ``HTTP2ClientPool``: turns what happens (inbox commands, socket
/// readiness, frames, time) into ``HTTP2PoolStateMachine`` events and carries out the actions the
/// machine returns, on sockets, nghttp2 sessions and callers' continuations. Everything in here
/// runs on that one thread; decisions are the state machine's.
final class HTTP2EventLoop {
    typealias Event = HTTP2PoolStateMachine.Event
    typealias ConnectionID = HTTP2PoolStateMachine.ConnectionID

    let callbacks: NGHTTP2Callbacks
    private let inbox: HTTP2Inbox
    private let configuration: HTTP2ClientConfiguration
    private let clock: any MonotonicClock
    private let logger: Logger
    private let tlsContext: TLSContext
    private let status: HTTP2PoolStatus

    private var machine: HTTP2PoolStateMachine
    /// Requests the machine has not finished: what goes on the wire and whom to resume.
    private var submissions: [UInt64: RequestSubmission] = [:]
    private var connections: [ConnectionID: HTTP2Connection] = [:]
    /// Connections whose DNS lookup runs on a helper thread.
    private var resolving: [ConnectionID: (origin: HTTP2Origin, attempt: Int)] = [:]
    private var events: [Event] = []
    private var actions: [HTTP2PoolStateMachine.Action] = []
    /// Callers to resume once this pass's statistics are published, so a caller that reads them
    /// after its answer never sees figures older than the answer.
    private var outcomes: [(CheckedContinuation<HTTP2Response, any Error>, Result<HTTP2Response, HTTP2ClientError>)] = []
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    private var commands: [HTTP2Inbox.Command] = []
    private var publishedStatistics: [HTTP2Origin: HTTP2OriginStatistics] = [:]
    private var pollDescriptors: [pollfd] = []
    private var polledConnections: [HTTP2Connection] = []

    init(inbox: HTTP2Inbox, configuration: HTTP2ClientConfiguration, clock: any MonotonicClock, logger: Logger,
         tlsContext: TLSContext, callbacks: NGHTTP2Callbacks, status: HTTP2PoolStatus) {
        self.inbox = inbox
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.tlsContext = tlsContext
        self.callbacks = callbacks
        self.status = status
        machine = HTTP2PoolStateMachine(configuration: configuration)
    }

    /// Runs until shutdown was requested and every accepted request has finished.
    func run() {
        while !machine.stopped {
            let now = clock.nowMilliseconds
            takeCommands()
            events.append(.tick)
            repeat {
                process(now: now)
                for connection in connections.values { connection.flush() }
            } while !events.isEmpty
            publishStatistics()
            resumeCallers()
            if machine.stopped { break }
            waitForEvents()
        }
        for command in inbox.finish() {
            switch command {
            case .shutdown(let waiter?): shutdownWaiters.append(waiter)
            case .send(let submission):  // posted before shutdown, taken by no pass
                submission.continuation.resume(throwing: HTTP2ClientError(.shutdown, detail: "the HTTP/2 client is shutting down"))
            case .shutdown(nil), .cancel, .resolved: break
            }
        }
        shutdownWaiters.forEach { $0.resume() }
    }

    // MARK: Events in

    /// An event from a connection (called from inside its I/O).
    func record(_ event: Event) { events.append(event) }

    func connectionClosed(_ connection: HTTP2Connection, _ error: HTTP2ClientError, sent: Set<UInt64>) {
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
        let inbox = self.inbox
        let resolver = Thread {
            nameCurrentThread("pushgate-h2-dns")
            let result = Result { () throws(TLSError) -> [SocketAddress] in
                do { return try SocketAddress.resolve(host: origin.host, port: origin.port) } catch let error as TLSError { throw error } catch {
                    throw TLSError(.connectFailed, operation: "resolve \(origin.host)", detail: "\(error)")
                }
            }
            inbox.post(.resolved(id, result))
        }
        resolver.start()
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
            connections[id] = try HTTP2Connection(loop: self, id: id, origin: origin, address: address, context: tlsContext,
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

    // MARK: Waiting

    /// Sleeps in poll(2) until a socket or the inbox is ready, or the next timer is due, then lets
    /// the ready connections read.
    private func waitForEvents() {
        let now = clock.nowMilliseconds
        pollDescriptors.removeAll(keepingCapacity: true)
        polledConnections.removeAll(keepingCapacity: true)
        pollDescriptors.append(pollfd(fd: inbox.waker.readDescriptor, events: Int16(POLLIN), revents: 0))
        var immediate = false
        for connection in connections.values where connection.pollEvents != 0 {
            pollDescriptors.append(pollfd(fd: connection.fileDescriptor, events: connection.pollEvents, revents: 0))
            polledConnections.append(connection)
            immediate = immediate || connection.hasUnreadInput
        }
        let granularity = Int64(max(1, configuration.timerGranularityMilliseconds))
        let timeout = immediate ? 0 : Int32(max(0, min(machine.nextTimer - now, granularity)))
        let ready = poll(&pollDescriptors, nfds_t(pollDescriptors.count), timeout)
        guard ready > 0 || immediate else { return }
        if pollDescriptors[0].revents != 0 { inbox.waker.drain() }
        for (index, connection) in polledConnections.enumerated()
        where pollDescriptors[index + 1].revents != 0 || connection.hasUnreadInput {
            connection.handleEvents()
        }
    }
}

/// A non-blocking pipe that wakes an event loop sleeping in poll(2) (the client pool's and the
/// fake APNs server's).
// @unchecked Sendable: immutable descriptors; write(2) and read(2) on a pipe are thread-safe.
package final class LoopWaker: @unchecked Sendable {
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw HTTP2ClientError(.connectFailed, detail: "cannot create the event loop's wake-up pipe: \(Socket.errnoText(errno))")
        }
        for fd in descriptors {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes the read end readable (a full pipe already is, so EAGAIN is fine).
    package func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe.
    package func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while Glibc.read(readDescriptor, &scratch, scratch.count) > 0 {}
    }
}
