import CCurl
import CLinux
import CMicroHTTPD
import Glibc

/// Runs a libmicrohttpd daemon that has no thread of its own (`MHD_USE_EPOLL` without an
/// internal thread) on an ``EpollEventLoop``: the daemon's epoll descriptor is watched, and a
/// timerfd fires at the daemon's own deadline (idle connections). Such a daemon has no
/// inter-thread channel: whoever resumes a connection calls ``wake()`` so the loop runs it.
///
/// `@unchecked Sendable`: `daemon` is set once by ``attach(_:)`` before the loop can see this
/// driver; `timer` and `detached` are used only on the loop thread.
final class DaemonDriver: @unchecked Sendable {
    /// The most `MHD_run` calls in a row while the daemon still has ready connections; then the
    /// loop's other descriptors get their turn first.
    private static let runsPerTurn = 8

    private var daemon: OpaquePointer?
    private let loop: EpollEventLoop
    private var epollDescriptor: Int32 = -1
    /// Fires at the daemon's next deadline.
    private let timer: EarliestDeadlineTimer
    private var detached = false

    init(loop: EpollEventLoop) throws(HTTPServerError) {
        timer = try EarliestDeadlineTimer()
        self.loop = loop
    }

    /// Starts driving `daemon` (started with `MHD_USE_EPOLL` and no thread).
    func attach(_ daemon: OpaquePointer) throws(HTTPServerError) {
        epollDescriptor = pg_mhd_epoll_fd(daemon)
        guard epollDescriptor >= 0 else { throw .startFailed(errno: EINVAL, message: "the daemon has no epoll descriptor") }
        self.daemon = daemon
        // The loop holds this driver through the handlers until `detach()`.
        loop.watch(epollDescriptor, events: EPOLLIN.rawValue) { [self] _ in run() }
        loop.watch(timer.descriptor, events: EPOLLIN.rawValue) { [self] _ in
            timer.fired()
            run()
        }
        loop.execute { [self] in run() }
    }

    /// Makes the loop run the daemon soon: after a connection was resumed (any thread).
    func wake() { loop.execute { [self] in run() } }

    /// Runs `job` where the daemon runs, and returns once it ran.
    func onLoop(_ job: @escaping @Sendable () -> Void) { loop.executeAndWait(job) }

    /// Stops driving the daemon: once this returns it is never run again, so it may be stopped.
    func detach() {
        loop.executeAndWait { [self] in
            detached = true
            loop.unwatch(epollDescriptor)
            loop.unwatch(timer.descriptor)
        }
    }

    /// Lets the daemon work, then arms the timer for its next deadline.
    private func run() {
        guard !detached, let daemon else { return }
        for _ in 0..<Self.runsPerTurn {
            _ = MHD_run(daemon)
            var timeout: UInt64 = 0
            guard MHD_get_timeout(daemon, &timeout) == .YES else { return }
            if timeout > 0 { return arm(milliseconds: timeout) }
        }
        loop.execute { [self] in run() }
    }

    private func arm(milliseconds: UInt64) {
        timer.arm(by: EarliestDeadlineTimer.now() + min(milliseconds, 86_400_000) * 1_000_000)
    }
}
