internal import CCurl
internal import CLinux
internal import CMicroHTTPD
import Glibc
import PushgateCore

/// Runs a libmicrohttpd daemon that has no thread of its own (`MHD_USE_EPOLL` without an
/// internal thread) on an ``EpollEventLoop``: the daemon's epoll descriptor is watched, and one
/// timerfd fires at the earlier of the daemon's own deadline (idle connections) and the next
/// sweep of request deadlines. Such a daemon has no inter-thread channel: whoever resumes a
/// connection calls ``wake()`` so the loop runs it.
///
/// `@unchecked Sendable`: `daemon` and `sweep` are set once by ``attach(_:sweepEvery:sweep:)``
/// before the loop can see this driver (``detach()`` clears `sweep` on the loop thread); `timer`,
/// `nextSweep` and `detached` are used only on the loop thread.
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
    /// The request-deadline sweep and its period in ns.
    private var sweep: (period: UInt64, run: @Sendable () -> Void)?
    /// When the sweep runs next (monotonic ns).
    private var nextSweep: UInt64 = 0

    init(loop: EpollEventLoop) throws(SystemError) {
        timer = try EarliestDeadlineTimer()
        self.loop = loop
    }

    /// Starts driving `daemon` (started with `MHD_USE_EPOLL` and no thread), and runs `sweep` on
    /// the loop every `period`.
    func attach(_ daemon: OpaquePointer, sweepEvery period: Duration, sweep: @escaping @Sendable () -> Void) throws(HTTPServerError) {
        epollDescriptor = pg_mhd_epoll_fd(daemon)
        guard epollDescriptor >= 0 else { throw .startFailed(errno: EINVAL, message: "the daemon has no epoll descriptor") }
        self.daemon = daemon
        let periodNs = UInt64(max(1, period.components.seconds * 1_000_000_000 + period.components.attoseconds / 1_000_000_000))
        self.sweep = (periodNs, sweep)
        nextSweep = EarliestDeadlineTimer.now() + periodNs
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

    /// Runs `job` where the daemon runs, soon, without waiting for it.
    func execute(_ job: @escaping @Sendable () -> Void) { loop.execute(job) }

    /// Runs `job` where the daemon runs, and returns once it ran.
    func onLoop(_ job: @escaping @Sendable () -> Void) { loop.executeAndWait(job) }

    /// Stops driving the daemon: once this returns it is never run again, so it may be stopped.
    func detach() {
        loop.executeAndWait { [self] in
            detached = true
            // The sweep holds the server's core, whose resume hook holds this driver: without
            // this the two keep each other, and all the server's routes, alive.
            sweep = nil
            loop.unwatch(epollDescriptor)
            loop.unwatch(timer.descriptor)
        }
    }

    /// Sweeps when due, lets the daemon work, then arms the timer for the next deadline.
    private func run() {
        guard !detached, let daemon else { return }
        if let sweep, EarliestDeadlineTimer.now() >= nextSweep {
            sweep.run()
            nextSweep = EarliestDeadlineTimer.now() + sweep.period
        }
        for _ in 0..<Self.runsPerTurn {
            _ = MHD_run(daemon)
            var timeout: UInt64 = 0
            guard MHD_get_timeout(daemon, &timeout) == .YES else { return timer.arm(by: nextSweep) }
            if timeout > 0 {
                return timer.arm(by: min(nextSweep, EarliestDeadlineTimer.now() + min(timeout, 86_400_000) * 1_000_000))
            }
        }
        loop.execute { [self] in run() }
    }
}
