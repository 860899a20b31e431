internal import CMicroHTTPD
import PushgateCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on GNU libmicrohttpd: epoll threads (or a shared ``EpollEventLoop``),
/// keep-alive, connection caps, timeouts, a streamed body cap, and async route handlers that
/// never block a server thread.
///
/// Starts listening in `init`. Shut down with ``stopAccepting()``, then
/// ``waitForInFlight(timeout:)``, then ``stop()`` (also run by `deinit`).
/// - Important: protocol/signed-relay.md §2 — routing, the pre-body hook and the body cap all answer
///   before the body is read.
public final class HTTPServer: Sendable {
    /// Runs after routing and before the body is read (e.g. a per-IP rate limit); a response
    /// answers the request at once. It runs on a server thread, so it must not block.
    public typealias PreBodyHook = @Sendable (HTTPRequest) -> HTTPResponse?
    /// Told the route pattern (`nil` when no route matched) and status of every response the
    /// application queued; libmicrohttpd's own 400/431 answers to malformed requests are not reported.
    public typealias ResponseObserver = @Sendable (_ route: String?, _ status: Int) -> Void

    private struct DaemonState {
        var daemon: OpaquePointer?
        var quiesced = false
        /// Runs the daemon on an event loop (the configured one, or `ownLoop`).
        var driver: DaemonDriver?
        /// The loop this server made when none was configured; closed by `stop()`.
        var ownLoop: EpollEventLoop?
    }

    /// The bound port (the real one when the configuration asked for 0).
    public let port: UInt16
    /// The bound address as configured.
    public let host: String
    private let core: ServerCore
    private let daemon: Mutex<DaemonState>

    /// Binds and starts serving `router`'s routes.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        router: Router,
        preBody: PreBodyHook? = nil,
        onResponse: ResponseObserver? = nil
    ) throws {
        try configuration.validate()
        guard let address = SocketAddress(ipLiteral: configuration.host, port: configuration.port) else {
            throw HTTPServerError.invalidHost(configuration.host)
        }
        // The daemon never gets a thread of its own: libmicrohttpd 0.9.75's internal epoll
        // threads can sleep in epoll_wait with a batch of ready connections unread
        // (docs/http-server.md); driven by MHD_run its epoll_wait never blocks.
        let loop: EpollEventLoop
        let ownLoop: EpollEventLoop?
        if let shared = configuration.eventLoop {
            (loop, ownLoop) = (shared, nil)
        } else {
            loop = try EpollEventLoop()
            ownLoop = loop
        }
        let driver: DaemonDriver
        do {
            driver = try DaemonDriver(loop: loop)
        } catch {
            ownLoop?.close()
            throw error
        }
        let core = ServerCore(configuration: configuration, router: router, preBody: preBody, onResponse: onResponse,
                              loop: loop, resumed: { driver.wake() })
        var flags = MHD_ALLOW_SUSPEND_RESUME.rawValue
        flags |= MHD_USE_EPOLL.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        // The daemon holds one reference to the core until `stop()` has stopped it.
        let context = Unmanaged.passRetained(core).toOpaque()
        let started = address.withSockaddrPointer { sockaddr in
            var options = [
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: sockaddr),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.idleTimeoutSeconds, ptr_value: nil),
            ]
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return options.withUnsafeBufferPointer { options in
                // The per-IP cap is the accept policy's: libmicrohttpd's own counts each IPv6
                // address apart and knows no proxies (``ConnectionsPerClient``).
                (pg_mhd_start_daemon(flags, configuration.perIPConnectionLimit > 0 ? DaemonCallbacks.acceptPolicy : nil,
                                     DaemonCallbacks.access, context, DaemonCallbacks.requestCompleted,
                                     DaemonCallbacks.connection, options.baseAddress), errno)
            }
        }
        guard let daemon = started.0 else {
            Unmanaged<ServerCore>.fromOpaque(context).release()
            ownLoop?.close()
            throw HTTPServerError.startFailed(errno: started.1, message: String(cString: strerror(started.1)))
        }
        do {
            try driver.attach(daemon, sweepEvery: core.sweepPeriod) { core.sweepDeadlines() }
        } catch {
            MHD_stop_daemon(daemon)
            Unmanaged<ServerCore>.fromOpaque(context).release()
            ownLoop?.close()
            throw error
        }
        self.core = core
        self.host = configuration.host
        self.port = pg_mhd_bind_port(daemon)
        self.daemon = Mutex(DaemonState(daemon: daemon, driver: driver, ownLoop: ownLoop))
    }

    deinit { stop() }

    /// Requests received and not yet completed.
    public var inFlightCount: Int { core.inFlight.count }

    /// Closes the listening socket: new connections are refused, open ones keep being served
    /// and their responses carry `connection: close`.
    public func stopAccepting() {
        daemon.withLock { state in
            // A running daemon always has its driver; both go together in `stop()`.
            guard let daemon = state.daemon, let driver = state.driver, !state.quiesced else { return }
            state.quiesced = true
            core.markQuiescing()
            // After quiescing, the listening socket is ours to close. The daemon is quiesced on
            // its event loop, never while it runs.
            let address = UInt(bitPattern: daemon)
            driver.onLoop {
                let listener = MHD_quiesce_daemon(OpaquePointer(bitPattern: address))
                if listener >= 0 { close(listener) }
            }
        }
    }

    /// Runs `job` soon on the thread that serves the connections, without waiting for it; a
    /// stuck loop never runs it (the service manager's watchdog, ``ServiceStatus``). Dropped
    /// once the server has stopped.
    public func executeOnLoop(_ job: @escaping @Sendable () -> Void) {
        daemon.withLock { $0.driver }?.execute(job)
    }

    /// Returns `true` once no request is in flight, or `false` when `timeout` passes first.
    public func waitForInFlight(timeout: Duration) async -> Bool {
        await core.inFlight.waitUntilIdle(timeout: timeout)
    }

    /// Stops the server: handlers still running are cut off (their connections closed, their
    /// results dropped), every connection is closed and the server's own loop thread, if any,
    /// has ended. Idempotent.
    /// Never call it from a route handler or hook: it joins the threads they may run on.
    public func stop() {
        guard let (daemon, driver, ownLoop) = daemon.withLock({ state in
            state.daemon.take().map { ($0, state.driver.take(), state.ownLoop.take()) }
        }) else { return }
        let cut = core.abandonHandlers()
        if cut > 0 {
            core.configuration.logger.warning(
                "stopped with handlers still running; call waitForInFlight before stop to let them finish",
                ["handlers": "\(cut)"])
        }
        // The loop must be done with the daemon before it is stopped.
        driver?.detach()
        MHD_stop_daemon(daemon)
        ownLoop?.close()
        Unmanaged.passUnretained(core).release()
    }
}
