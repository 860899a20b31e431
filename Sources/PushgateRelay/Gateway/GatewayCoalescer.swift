import PushgateCore
import PushgateStore
import Synchronization

/// Holds each registration's notifications for a fixed window so a burst becomes one banner,
/// and holds a window whose delivery failed for a passing reason until its retry.
///
/// - Important: orca-gateway.md §6 — the first notification opens a window and starts one
///   timer; later ones are appended and never extend it; on flush the window is removed before
///   delivery, so a notification arriving meanwhile opens a fresh one. Pushgate also keeps every
///   queued notification in the outbox table (docs/gateway.md "Coalescing and delivery"):
///   windows are rebuilt from it at start-up, and a failed window comes back here for its retry.
final class GatewayCoalescer: Sendable {
    private struct OpenWindow {
        /// Tells this window's timer from an earlier window's for the same registration.
        var generation: UInt64
        var window: GatewayWindow
        var timer: (any ScheduledJob)?
    }

    private struct State {
        var windows: [String: OpenWindow] = [:]
        var nextGeneration: UInt64 = 0
        /// Set at shutdown: nothing is added or re-armed any more; the outbox table keeps it.
        var closing = false
    }

    private let windowMs: Int64
    private let scheduler: any Scheduler
    private let attempt: @Sendable (GatewayWindow) async -> GatewayWindow?
    private let state = Mutex(State())
    /// Deliveries started by flushes and not yet finished.
    let deliveries = DeliveryTracker()

    /// A coalescer flushing after `windowMs` on `scheduler`, handing each window to `attempt`,
    /// which returns the window to try again (its failed attempts and next due time updated), if any.
    init(windowMs: Int64, scheduler: any Scheduler, attempt: @escaping @Sendable (GatewayWindow) async -> GatewayWindow?) {
        self.windowMs = windowMs
        self.scheduler = scheduler
        self.attempt = attempt
    }

    /// Adds an accepted notification to the registration's window, opening one if none is open.
    func add(_ notification: GatewayQueuedNotification, registrationId: String, hostFingerprint: String) {
        enqueue(GatewayWindow(registrationId: registrationId, hostFingerprint: hostFingerprint, notifications: [notification],
                              attempts: 0, dueAt: scheduler.clock.nowMilliseconds + windowMs), isNewest: true)
    }

    /// Puts outbox rows taken over from a relay process that ended into windows, one per
    /// registration, due at the earliest of their due times: at once when that has passed.
    func restore(_ rows: [GatewayOutboxRow]) {
        for (registrationId, rows) in Dictionary(grouping: rows, by: \.registrationId) {
            enqueue(GatewayWindow(registrationId: registrationId, hostFingerprint: rows[0].hostFingerprint,
                                  notifications: rows.map(\.queued), attempts: rows.map(\.attempts).max() ?? 0,
                                  dueAt: rows.map(\.dueAt).min() ?? 0), isNewest: false)
        }
    }

    /// Opens `window` with a timer for its due time, or, when its registration has a window open
    /// already, adds its notifications there (that window's timer stands): after the open one's
    /// when `isNewest`, else before. The retry count is the larger of the two.
    private func enqueue(_ window: GatewayWindow, isNewest: Bool) {
        let registrationId = window.registrationId
        let opened = state.withLock { state -> UInt64? in
            guard !state.closing else { return nil }
            if var open = state.windows[registrationId] {
                open.window.notifications = isNewest ? open.window.notifications + window.notifications
                    : window.notifications + open.window.notifications
                open.window.attempts = max(open.window.attempts, window.attempts)
                state.windows[registrationId] = open
                return nil
            }
            state.nextGeneration += 1
            state.windows[registrationId] = OpenWindow(generation: state.nextGeneration, window: window)
            return state.nextGeneration
        }
        guard let generation = opened else { return }
        // Scheduled outside the lock: a scheduler may run the job at once on another thread.
        let timer = scheduler.schedule(afterMs: max(0, window.dueAt - scheduler.clock.nowMilliseconds)) { [weak self] in
            self?.flush(registrationId: registrationId, generation: generation)
        }
        state.withLock { state in
            if state.windows[registrationId]?.generation == generation { state.windows[registrationId]?.timer = timer }
        }
    }

    /// Flushes one window now (its timer fired, or shutdown): removes it, then tries it in the
    /// background; a window to try again comes back through ``enqueue(_:isNewest:)``. With
    /// `generation`, only that window, not a newer one.
    func flush(registrationId: String, generation: UInt64? = nil) {
        let removed = state.withLock { state -> OpenWindow? in
            guard let open = state.windows[registrationId], generation == nil || open.generation == generation else { return nil }
            return state.windows.removeValue(forKey: registrationId)
        }
        guard let removed else { return }
        removed.timer?.cancel()
        let attempt = attempt
        deliveries.start { [weak self] in
            guard let retry = await attempt(removed.window) else { return }
            // Older than anything that opened meanwhile.
            self?.enqueue(retry, isNewest: false)
        }
    }

    /// Shutdown: flushes every window still collecting and waits until all deliveries have
    /// finished. Windows waiting for a retry, and windows that fail now, stay in the outbox table
    /// for the next start (or, on PostgreSQL, another relay).
    func flushAll() async {
        let (collecting, waiting) = state.withLock { state -> ([String], [OpenWindow]) in
            state.closing = true
            let waiting = state.windows.filter { $0.value.window.attempts > 0 }
            for registrationId in waiting.keys { state.windows.removeValue(forKey: registrationId) }
            return (Array(state.windows.keys), Array(waiting.values))
        }
        waiting.forEach { $0.timer?.cancel() }
        for registrationId in collecting { flush(registrationId: registrationId) }
        await deliveries.waitUntilIdle()
    }

    /// Open windows, collecting or waiting for a retry.
    var openWindows: Int { state.withLock { $0.windows.count } }

    /// Notifications waiting in open windows.
    var pendingNotifications: Int { state.withLock { $0.windows.values.reduce(0) { $0 + $1.window.notifications.count } } }
}
