import Glibc
import PushgateCore
import PushgateHTTP

/// A fake server's I/O loop: one thread `poll`s the wakeup pipe, the listener and every
/// connection, and fires scripted-delay timers, so a delayed stream never holds up the others.
///
/// Not thread-safe: it lives on its own thread; other threads reach it through
/// ``FakeServerControl`` and ``LoopWaker``.
final class FakeServerLoop {
    private let listener: TCPListener
    private let context: TLSContext
    private let control: FakeServerControl
    private let wakeup: LoopWaker
    private let name: String
    private let logger: Logger
    private var environment: FakeServerConnection.Environment
    private var connections: [Int: FakeServerConnection] = [:]
    private var nextConnectionId = 1
    private var publishedPeak = 0

    init(listener: TCPListener, context: TLSContext, control: FakeServerControl, wakeup: LoopWaker,
         responder: any FakeServerResponder, name: String, logger: Logger) {
        self.listener = listener
        self.context = context
        self.control = control
        self.wakeup = wakeup
        self.name = name
        self.logger = logger
        environment = FakeServerConnection.Environment(
            control: control, responder: responder, policy: control.policy, delayed: DelayedResponseQueue())
    }

    /// Serves until a `stop` command arrives; then every connection is closed.
    func run() {
        var descriptors: [pollfd] = []
        var order: [FakeServerConnection] = []
        while true {
            descriptors.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: listener.fileDescriptor, events: Int16(POLLIN), revents: 0))
            for connection in connections.values {
                order.append(connection)
                descriptors.append(pollfd(fd: connection.fileDescriptor, events: connection.pollEvents, revents: 0))
            }
            let timeout = environment.delayed.millisecondsUntilNext(now: MonotonicTime.nowMilliseconds()).map { Int32(clamping: $0) } ?? -1
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 && errno != EINTR {
                logger.error("fake server poll failed; stopping", ["server": name, "error": String(cString: strerror(errno))])
                break
            }
            environment.policy = control.policy
            if descriptors[0].revents != 0 {
                wakeup.drain()
                guard runCommands() else { break }
            }
            if descriptors[1].revents != 0 { acceptPending() }
            for (index, connection) in order.enumerated() where descriptors[index + 2].revents != 0 {
                serve(connection) { try $0.handleReadiness(&self.environment) }
            }
            fireDueTimers()
            sweep()
        }
        connections.removeAll()
    }

    /// Runs queued commands; false once `stop` was among them.
    private func runCommands() -> Bool {
        for command in control.takeCommands() {
            switch command {
            case .stop:
                return false
            case .dropConnections(let report):
                var dropped = 0
                for connection in connections.values where connection.phase != .closed {
                    connection.drop()
                    dropped += 1
                }
                control.count { $0.connectionsDropped += dropped }
                report?(dropped)
            case .announceMaxConcurrentStreams(let limit):
                for connection in connections.values { serve(connection) { try $0.announce(maxConcurrentStreams: limit) } }
            }
        }
        return true
    }

    private func acceptPending() {
        while true {
            let socket: Int32?
            do {
                socket = try listener.accept()
            } catch {
                logger.warning("fake server accept failed", ["server": name, "error": "\(error)"])
                return
            }
            guard let socket else { return }
            do {
                let connection = try FakeServerConnection(
                    id: nextConnectionId, socket: socket, context: context,
                    maxConcurrentStreams: environment.policy.maxConcurrentStreams)
                connections[nextConnectionId] = connection
                nextConnectionId += 1
                control.count { $0.connectionsAccepted += 1 }
            } catch {
                logger.warning("fake server could not set up a connection", ["server": name, "error": "\(error)"])
            }
        }
    }

    private func fireDueTimers() {
        guard !environment.delayed.isEmpty else { return }
        for entry in environment.delayed.takeDue(now: MonotonicTime.nowMilliseconds()) {
            guard let connection = connections[entry.connectionId] else { continue }
            serve(connection) { try $0.sendDelayed(entry.response, streamId: entry.streamId) }
        }
    }

    /// Runs `work`; a connection that fails is closed (a client may hang up at any point).
    private func serve(_ connection: FakeServerConnection, _ work: (FakeServerConnection) throws -> Void) {
        do {
            try work(connection)
        } catch {
            logger.info("fake server closed a failed connection", ["server": name, "connection": String(connection.id), "error": "\(error)"])
            connection.drop()
        }
    }

    /// Publishes the stream peak and releases finished connections (closing their sockets).
    private func sweep() {
        for (id, connection) in connections {
            if connection.peakOpenStreams > publishedPeak {
                publishedPeak = connection.peakOpenStreams
                control.count { $0.maxConcurrentStreamsSeen = max($0.maxConcurrentStreamsSeen, connection.peakOpenStreams) }
            }
            if connection.isFinished { connections[id] = nil }
        }
    }
}
