import PushgateCore
import PushgateStore
import Synchronization

/// Holds each registration's notifications for a fixed window so a burst becomes one banner,
/// and holds a window whose delivery failed for a passing reason until its retry: a window once
/// sent waits apart from the registration's collecting one, so its retry sends the same push at
/// its own due time.
///
/// - Important: protocol/gateway.md §6 — the first notification opens a window and starts one
///   timer; later ones are appended and never extend it; on flush the window is removed before
///   delivery, so a notification arriving meanwhile opens a fresh one. Pushgate also keeps every
///   queued notification in the outbox table (docs/gateway.md "Coalescing and delivery"):
///   windows are rebuilt from it at start-up, and a failed window comes back here for its retry.
final class GatewayCoalescer: Sendable {
    private struct OpenWindow {
        /// Tells this window's timer from an earlier window's in the same slot.
        var generation: UInt64
        var window: GatewayWindow
        var timer: (any ScheduledJob)?
    }

    /// Where a window waits: one collecting window per registration, and each window already
    /// sent (claimed) under its own id.
    private enum Slot: Hashable {
        case collecting(registrationId: String)
        case sent(windowId: String)

        init(windowId: String?, registrationId: String) {
            self = windowId.map { .sent(windowId: $0) } ?? .collecting(registrationId: registrationId)
        }

        var windowId: String? { if case .sent(let windowId) = self { windowId } else { nil } }
    }

    private struct State {
        var windows: [Slot: OpenWindow] = [:]
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

    /// Puts outbox rows taken over from a relay process that ended into windows: the rows of a
    /// window that was sent into that window again, due at its stored retry time; the others one
    /// collecting window per registration, due at the earliest of their due times. A window
    /// whose time has passed is due at once.
    func restore(_ rows: [GatewayOutboxRow]) {
        for (slot, rows) in Dictionary(grouping: rows, by: { Slot(windowId: $0.windowId, registrationId: $0.registrationId) }) {
            let dueTimes = rows.map(\.dueAt)
            enqueue(GatewayWindow(registrationId: rows[0].registrationId, hostFingerprint: rows[0].hostFingerprint,
                                  notifications: rows.map(\.queued), attempts: rows.map(\.attempts).max() ?? 0,
                                  dueAt: (slot.windowId == nil ? dueTimes.min() : dueTimes.max()) ?? 0, windowId: slot.windowId),
                    isNewest: false)
        }
    }

    /// Opens `window` in its slot with a timer for its due time, or, when a window is open there
    /// already (only ever a collecting one), adds its notifications to it (that window's timer
    /// stands): after the open one's when `isNewest`, else before. The retry count is the larger.
    private func enqueue(_ window: GatewayWindow, isNewest: Bool) {
        let slot = Slot(windowId: window.windowId, registrationId: window.registrationId)
        let opened = state.withLock { state -> UInt64? in
            guard !state.closing else { return nil }
            if var open = state.windows[slot] {
                open.window.notifications = isNewest ? open.window.notifications + window.notifications
                    : window.notifications + open.window.notifications
                open.window.attempts = max(open.window.attempts, window.attempts)
                state.windows[slot] = open
                return nil
            }
            state.nextGeneration += 1
            state.windows[slot] = OpenWindow(generation: state.nextGeneration, window: window)
            return state.nextGeneration
        }
        guard let generation = opened else { return }
        // Scheduled outside the lock: a scheduler may run the job at once on another thread.
        let timer = scheduler.schedule(afterMs: max(0, window.dueAt - scheduler.clock.nowMilliseconds)) { [weak self] in
            self?.flush(slot, generation: generation)
        }
        state.withLock { state in
            if state.windows[slot]?.generation == generation { state.windows[slot]?.timer = timer }
        }
    }

    /// Flushes one window now (its timer fired, or shutdown): removes it, then tries it in the
    /// background; a window to try again comes back through ``enqueue(_:isNewest:)``. With
    /// `generation`, only that window, not a newer one.
    private func flush(_ slot: Slot, generation: UInt64? = nil) {
        let removed = state.withLock { state -> OpenWindow? in
            guard let open = state.windows[slot], generation == nil || open.generation == generation else { return nil }
            return state.windows.removeValue(forKey: slot)
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
        let (collecting, waiting) = state.withLock { state -> ([Slot], [OpenWindow]) in
            state.closing = true
            let waiting = state.windows.filter { $0.value.window.attempts > 0 || $0.value.window.windowId != nil }
            for slot in waiting.keys { state.windows.removeValue(forKey: slot) }
            return (Array(state.windows.keys), Array(waiting.values))
        }
        waiting.forEach { $0.timer?.cancel() }
        for slot in collecting { flush(slot) }
        await deliveries.waitUntilIdle()
    }

    /// Open windows, collecting or waiting for a retry.
    var openWindows: Int { state.withLock { $0.windows.count } }

    /// Notifications waiting in open windows.
    var pendingNotifications: Int { state.withLock { $0.windows.values.reduce(0) { $0 + $1.window.notifications.count } } }
}

/// One registration's queued notifications, oldest first, as a coalescing window holds them:
/// when they are due to be delivered and how many attempts at them have failed so far.
struct GatewayWindow: Sendable {
    var registrationId: String
    var hostFingerprint: String
    /// Never empty.
    var notifications: [GatewayQueuedNotification]
    var attempts: Int
    var dueAt: Int64
    /// Set when the window is first claimed for a send (its first notification's send id, kept
    /// in its rows): from then on it takes no other notification, so every resend is the push
    /// that may have arrived, under the same collapse id. `nil` while it collects.
    var windowId: String? = nil

    var sendIds: [String] { notifications.map(\.sendId) }

    /// The summary the window sends (docs/gateway.md, "Coalescing and delivery").
    var delivery: GatewayDelivery {
        GatewayDelivery(registrationId: registrationId, hostFingerprint: hostFingerprint,
                        latest: notifications[notifications.count - 1].notification, count: notifications.count,
                        anyNeedsInput: notifications.contains { $0.notification.agentState == "needs-input" })
    }
}
