internal import CLinux
import PushgateCore
import PushgateHTTP

/// A fake server's I/O: its listener, its connections and one timer for the scripted delays,
/// watched by an ``EpollEventLoop`` of the fake's own (docs/fake-apns.md), so a delayed stream
/// never holds up the others.
///
/// `@unchecked Sendable`: everything past `init` runs on the loop thread — the loop's handlers and
/// the jobs ``run(_:)`` and ``stop()`` hand it — so its state is never touched by two threads.
final class FakeServerLoop: @unchecked Sendable {
    /// A descriptor the loop could not watch.
    struct WatchError: Error, CustomStringConvertible {
        let what: String
        var description: String { "the fake server cannot watch its \(what)" }
    }

    private let loop: EpollEventLoop
    /// Fires when the first delayed response is due.
    private let timer: EarliestDeadlineTimer
    /// Nil once stopped (releasing it closes the listening socket).
    private var listener: TCPListener?
    private let context: TLSContext
    private let control: FakeServerControl
    private let name: String
    private let logger: Logger
    private var environment: FakeServerConnection.Environment
    private var connections: [Int: FakeServerConnection] = [:]
    private var nextConnectionId = 1
    private var publishedPeak = 0

    /// Starts serving `listener` on a loop thread of its own; `responder` is used only there.
    init(listener: TCPListener, context: TLSContext, control: FakeServerControl,
         responder: any FakeServerResponder, name: String, logger: Logger) throws {
        loop = try EpollEventLoop()
        do {
            timer = try EarliestDeadlineTimer()
        } catch {
            loop.close()
            throw error
        }
        self.listener = listener
        self.context = context
        self.control = control
        self.name = name
        self.logger = logger
        environment = FakeServerConnection.Environment(
            control: control, responder: responder, policy: control.policy, delayed: DelayedResponseQueue())
        guard loop.watch(timer.descriptor, events: EPOLLIN.rawValue, { [self] _ in sendDueResponses() }) else {
            loop.close()
            throw WatchError(what: "timer")
        }
        guard loop.watch(listener.fileDescriptor, events: EPOLLIN.rawValue, { [self] _ in acceptPending() }) else {
            loop.close()
            throw WatchError(what: "listener")
        }
    }

    /// Carries out `command` on the loop thread, after the commands handed over before it.
    func run(_ command: FakeServerControl.Command) {
        loop.execute { [self] in carryOut(command) }
    }

    /// Closes every connection and the listener, and returns once the loop thread has ended.
    func stop() {
        loop.executeAndWait { [self] in
            for connection in connections.values { loop.unwatch(connection.fileDescriptor) }
            connections.removeAll()
            loop.unwatch(timer.descriptor)
            if let listener { loop.unwatch(listener.fileDescriptor) }
            listener = nil
        }
        loop.close()
    }

    private func carryOut(_ command: FakeServerControl.Command) {
        environment.policy = control.policy
        switch command {
        case .dropConnections(let report):
            var dropped = 0
            for connection in connections.values where connection.phase != .closed {
                connection.drop()
                dropped += 1
            }
            control.count { $0.connectionsDropped += dropped }
            connections.values.forEach(settle)
            report?(dropped)
        case .announceMaxConcurrentStreams(let limit):
            for connection in connections.values {
                serve(connection) { try $0.announce(maxConcurrentStreams: limit) }
                settle(connection)
            }
        }
    }

    private func acceptPending() {
        guard let listener else { return }
        environment.policy = control.policy
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
                settle(connection)
            } catch {
                logger.warning("fake server could not set up a connection", ["server": name, "error": "\(error)"])
            }
        }
    }

    private func connectionReady(_ id: Int) {
        guard let connection = connections[id] else { return }
        environment.policy = control.policy
        serve(connection) { try $0.handleReadiness(&self.environment) }
        settle(connection)
        armTimer()
    }

    private func sendDueResponses() {
        timer.fired()
        for entry in environment.delayed.takeDue(now: EarliestDeadlineTimer.now()) {
            guard let connection = connections[entry.connectionId] else { continue }
            serve(connection) { try $0.sendDelayed(entry.response, streamId: entry.streamId) }
            settle(connection)
        }
        armTimer()
    }

    private func armTimer() {
        if let due = environment.delayed.nextDue { timer.arm(by: due) }
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

    /// After `connection` did some work: publishes its stream peak, then releases it when it is
    /// finished (closing its socket) or watches it for what it waits for now.
    private func settle(_ connection: FakeServerConnection) {
        if connection.peakOpenStreams > publishedPeak {
            publishedPeak = connection.peakOpenStreams
            control.count { $0.maxConcurrentStreamsSeen = max($0.maxConcurrentStreamsSeen, connection.peakOpenStreams) }
        }
        let id = connection.id
        if connection.isFinished {
            release(connection)
            return
        }
        let events = connection.epollEvents
        guard events != connection.watchedEvents else { return }
        guard loop.watch(connection.fileDescriptor, events: events, { [self] _ in connectionReady(id) }) else {
            logger.warning("fake server cannot watch a connection; closing it", ["server": name, "connection": String(id)])
            release(connection)
            return
        }
        connection.watchedEvents = events
    }

    private func release(_ connection: FakeServerConnection) {
        if connection.watchedEvents != nil { loop.unwatch(connection.fileDescriptor) }
        connections[connection.id] = nil
    }
}
