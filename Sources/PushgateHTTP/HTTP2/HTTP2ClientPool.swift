import Foundation
import PushgateCore
import Synchronization

/// An HTTP/2 client over TLS: long-lived connections per origin, many concurrent requests per
/// connection, its I/O on an ``EpollEventLoop`` shared with other pools. Callers just `await send(_:)`.
///
/// - Important: ALPN `h2` only; honours SETTINGS_MAX_CONCURRENT_STREAMS and GOAWAY, PINGs idle
///   connections, backs off between failed connections (docs/concurrency.md, "The HTTP/2 client inside").
public final class HTTP2ClientPool: Sendable {
    private let driver: HTTP2PoolDriver
    private let clock: any MonotonicClock
    private let defaultTimeout: Int64
    private let nextRequestID = Atomic<UInt64>(1)
    private let status = HTTP2PoolStatus()

    /// The loop of pools created without one, started by the first (thread `pushgate-h2`): the
    /// process's HTTP/2 clients share one thread, not one each.
    private static let sharedLoop = Result { try EpollEventLoop(threadName: "pushgate-h2") }

    /// Runs the pool's I/O on `loop`, or on the process's shared HTTP/2 loop when nil. Deadlines,
    /// timeouts, PINGs and back-off read `clock`. Throws when the TLS context cannot be built
    /// (unreadable extra CA file).
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration(),
                clock: any MonotonicClock = SystemMonotonicClock(), logger: Logger, loop: EpollEventLoop? = nil) throws {
        let tlsContext = try TLSContext.client(extraCAFile: configuration.extraCAFile, alpn: ["h2"])
        let callbacks = try HTTP2ClientSessionCallbacks.make()
        driver = try HTTP2PoolDriver(loop: loop ?? Self.sharedLoop.get(), configuration: configuration, clock: clock,
                                     logger: logger, tlsContext: tlsContext, callbacks: callbacks, status: status)
        self.clock = clock
        self.defaultTimeout = configuration.requestTimeoutMilliseconds
    }

    deinit {
        driver.post(.shutdown(nil))
    }

    /// Sends `request` and waits for the complete response (body capped at `maxResponseBodyBytes`).
    /// Throws ``HTTP2ClientError``: `timeout` after the request's deadline, `queueFull`,
    /// `connectFailed` (with the TLS reason), `connectionLost`, `refused`, `streamReset`, `cancelled`, `shutdown`.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let headers = try HeaderBlock(request: request)
        let id = nextRequestID.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = clock.nowMilliseconds + (request.timeoutMilliseconds ?? defaultTimeout)
        let driver = self.driver
        return try await withTaskCancellationHandler {
            // Unsafe: the driver resumes each request exactly once (its machine finishes every
            // request it accepted once, and the inbox answers those it refused), and a checked
            // continuation costs an allocation per request.
            try await withUnsafeThrowingContinuation { continuation in
                let submission = RequestSubmission(id: id, origin: request.origin, headers: headers, body: request.body,
                                                   deadline: deadline, continuation: continuation)
                guard driver.post(.send(submission)) else {
                    return continuation.resume(throwing: HTTP2ClientError(.shutdown, detail: "the HTTP/2 client is shutting down"))
                }
                // A task cancelled before this point ran its handler already (at once, when it was
                // cancelled before `send`), and that `.cancel` reached the loop ahead of the request,
                // which ignored it. Cancelling sets the flag before running the handler, so checking
                // the flag after posting misses no cancellation.
                if Task.isCancelled { driver.post(.cancel(id)) }
            }
        } onCancel: {
            driver.post(.cancel(id))
        }
    }

    /// Refuses new requests, lets accepted ones finish (each within its deadline), closes every
    /// connection with GOAWAY and stops watching its descriptors. The loop goes on serving the
    /// other pools on it.
    public func shutdown() async {
        let driver = self.driver
        await withCheckedContinuation { continuation in
            if !driver.post(.shutdown(continuation)) { continuation.resume() }
        }
    }

    /// Connections, open streams and waiting requests for `origin`, as of the pool's last
    /// pass (published before that pass resumes its callers).
    public func statistics(for origin: HTTP2Origin) -> HTTP2OriginStatistics {
        status.statistics(for: origin)
    }

    /// Returns once the statistics for `origin` satisfy `condition` (for tests: waits on the
    /// pool's updates, never on time).
    package func statistics(for origin: HTTP2Origin, until condition: @escaping @Sendable (HTTP2OriginStatistics) -> Bool) async {
        await status.wait(for: origin, until: condition)
    }
}

/// A snapshot of a pool's work for one origin (for metrics and tests).
public struct HTTP2OriginStatistics: Sendable, Equatable {
    /// Connections opening, open or draining.
    public let connections: Int
    /// Streams open on those connections.
    public let openStreams: Int
    /// Requests waiting for a free stream or a connection.
    public let waitingRequests: Int

    public init(connections: Int, openStreams: Int, waitingRequests: Int) {
        self.connections = connections
        self.openStreams = openStreams
        self.waitingRequests = waitingRequests
    }

    static let idle = HTTP2OriginStatistics(connections: 0, openStreams: 0, waitingRequests: 0)
}

/// A request handed from a caller's task to the pool's loop, with the continuation to resume.
/// A class: the inbox, the driver's table and its actions pass one reference around instead of
/// copying the fields.
final class RequestSubmission: Sendable {
    let id: UInt64
    let origin: HTTP2Origin
    let headers: HeaderBlock
    let body: [UInt8]
    /// Absolute deadline in milliseconds of the pool's monotonic clock.
    let deadline: Int64
    let continuation: UnsafeContinuation<HTTP2Response, any Error>

    init(id: UInt64, origin: HTTP2Origin, headers: HeaderBlock, body: [UInt8], deadline: Int64,
         continuation: UnsafeContinuation<HTTP2Response, any Error>) {
        self.id = id
        self.origin = origin
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.continuation = continuation
    }
}

/// The only way into a pool's driver from other threads: callers post commands, a pass on the
/// loop takes them all at once.
final class HTTP2Inbox: Sendable {
    enum Command: Sendable {
        case send(RequestSubmission)
        case cancel(UInt64)
        /// The ``HostResolver`` resolved a connection's origin.
        case resolved(HTTP2PoolStateMachine.ConnectionID, Result<[SocketAddress], TLSError>)
        /// Stop after the accepted requests finished; resume the continuation (if any) once closed.
        case shutdown(CheckedContinuation<Void, Never>?)
    }

    private struct State {
        var commands: [Command] = []
        var closed = false
        var finished = false
    }

    private let state = Mutex(State())

    /// Queues a command; returns whether the inbox was empty, or nil (dropping the command) for a
    /// `send` after shutdown began and for anything once the pool stopped.
    func post(_ command: Command) -> Bool? {
        state.withLock { state in
            if state.finished { return nil }
            if case .send = command, state.closed { return nil }
            if case .shutdown = command { state.closed = true }
            let wasEmpty = state.commands.isEmpty
            state.commands.append(command)
            return wasEmpty
        }
    }

    /// Whether commands wait for a pass.
    var hasCommands: Bool { state.withLock { !$0.commands.isEmpty } }

    /// Swaps every queued command (oldest first) into `batch`, which must be empty; its storage
    /// becomes the next inbox, so a steady stream of commands allocates nothing.
    func takeAll(into batch: inout [Command]) {
        state.withLock { state in
            if !state.commands.isEmpty { swap(&state.commands, &batch) }
        }
    }

    /// Called as the pool stops: later posts are refused; returns what was still queued.
    func finish() -> [Command] {
        state.withLock { state in
            state.finished = true
            state.closed = true
            defer { state.commands = [] }
            return state.commands
        }
    }
}

/// Per-origin figures published by the pool's passes for ``HTTP2ClientPool/statistics(for:)``, and
/// the tasks waiting for them to reach a condition.
final class HTTP2PoolStatus: Sendable {
    private struct Waiter {
        let origin: HTTP2Origin
        let condition: @Sendable (HTTP2OriginStatistics) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var figures: [HTTP2Origin: HTTP2OriginStatistics] = [:]
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    func update(_ newFigures: [HTTP2Origin: HTTP2OriginStatistics]) {
        let satisfied = state.withLock { state in
            state.figures = newFigures
            let (ready, waiting) = state.waiters.partitioned { $0.condition(newFigures[$0.origin] ?? .idle) }
            state.waiters = waiting
            return ready
        }
        satisfied.forEach { $0.continuation.resume() }
    }

    func statistics(for origin: HTTP2Origin) -> HTTP2OriginStatistics {
        state.withLock { $0.figures[origin] } ?? .idle
    }

    func wait(for origin: HTTP2Origin, until condition: @escaping @Sendable (HTTP2OriginStatistics) -> Bool) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if condition(state.figures[origin] ?? .idle) { return true }
                state.waiters.append(Waiter(origin: origin, condition: condition, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

private extension Array {
    /// The elements that satisfy `predicate`, and the others, each in order.
    func partitioned(_ predicate: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching: [Element] = []
        var rest: [Element] = []
        for element in self { if predicate(element) { matching.append(element) } else { rest.append(element) } }
        return (matching, rest)
    }
}
