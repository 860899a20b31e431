import PushgateCore

/// What a server tells the service manager (``ServiceNotifier``): `READY=1` once it listens,
/// `WATCHDOG=1` while it still turns, `STOPPING=1` when it begins to stop. Without
/// `NOTIFY_SOCKET` it tells nothing.
///
/// A watchdog ping is sent by a job on the server's event loop, handed there by a task on the
/// cooperative pool that the scheduler starts every half `WATCHDOG_USEC`: a loop or a pool that
/// is stuck sends none, and the service manager restarts the process (docs/relay.md "Service
/// manager").
public final class ServiceStatus: Sendable {
    /// Runs a job on the server's event loop.
    public typealias LoopExecutor = @Sendable (@escaping @Sendable () -> Void) -> Void

    private let notifier: ServiceNotifier?
    private let watchdog: (any ScheduledJob)?
    private let logger: Logger

    /// Says `READY=1` and starts the watchdog's pings when the service manager asked for them.
    public init(readyWith environment: [String: String], scheduler: any Scheduler, loop: @escaping LoopExecutor, logger: Logger) {
        let notifier = ServiceNotifier(environment: environment)
        self.notifier = notifier
        self.logger = logger
        guard let notifier else {
            watchdog = nil
            return
        }
        if !notifier.send("READY=1") { logger.warning("the service manager's NOTIFY_SOCKET took no READY=1") }
        watchdog = notifier.watchdogIntervalMs.map { interval in
            scheduler.scheduleRepeating(everyMs: interval) {
                Task { loop { notifier.send("WATCHDOG=1") } }
            }
        }
        logger.info("told the service manager: ready", ["watchdogMs": notifier.watchdogIntervalMs.map { "\($0)" } ?? "off"])
    }

    /// Stops the watchdog's pings and says `STOPPING=1`.
    public func stopping() {
        watchdog?.cancel()
        if let notifier, !notifier.send("STOPPING=1") { logger.warning("the service manager's NOTIFY_SOCKET took no STOPPING=1") }
    }
}
