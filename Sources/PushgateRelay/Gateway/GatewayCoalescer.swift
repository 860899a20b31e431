import PushgateCore
import Synchronization

/// Holds each registration's notifications for a fixed window so a burst becomes one banner.
///
/// - Important: orca-gateway.md §6 — the first notification opens a window and starts one
///   timer; later ones are appended and never extend it; on flush the window is removed before
///   delivery, so a notification arriving meanwhile opens a fresh one. Windows live in memory.
final class GatewayCoalescer: Sendable {
    private struct Window {
        /// Tells this window's timer from an earlier window's for the same registration.
        var generation: UInt64
        var hostFingerprint: String
        var count: Int
        var anyNeedsInput: Bool
        var latest: GatewayNotification
        var timer: (any ScheduledJob)?
    }

    private struct State {
        var windows: [String: Window] = [:]
        var nextGeneration: UInt64 = 0
    }

    private let windowMs: Int64
    private let scheduler: any Scheduler
    private let deliver: @Sendable (GatewayDelivery) async -> Void
    private let state = Mutex(State())
    /// Deliveries started by flushes and not yet finished.
    let deliveries = DeliveryTracker()

    /// A coalescer flushing after `windowMs` on `scheduler`, handing each summary to `deliver`
    /// (which must not throw: failures are counted and logged there).
    init(windowMs: Int64, scheduler: any Scheduler, deliver: @escaping @Sendable (GatewayDelivery) async -> Void) {
        self.windowMs = windowMs
        self.scheduler = scheduler
        self.deliver = deliver
    }

    /// Adds an accepted notification to the registration's window, opening one if none is open.
    func add(_ notification: GatewayNotification, registrationId: String, hostFingerprint: String) {
        let needsInput = notification.agentState == "needs-input"
        let opened = state.withLock { state -> UInt64? in
            if var window = state.windows[registrationId] {
                window.count += 1
                window.anyNeedsInput = window.anyNeedsInput || needsInput
                window.latest = notification
                state.windows[registrationId] = window
                return nil
            }
            state.nextGeneration += 1
            state.windows[registrationId] = Window(generation: state.nextGeneration, hostFingerprint: hostFingerprint, count: 1,
                                                   anyNeedsInput: needsInput, latest: notification)
            return state.nextGeneration
        }
        guard let generation = opened else { return }
        // Scheduled outside the lock: a scheduler may run the job at once on another thread.
        let timer = scheduler.schedule(afterMs: windowMs) { [weak self] in
            self?.flush(registrationId: registrationId, generation: generation)
        }
        state.withLock { state in
            if state.windows[registrationId]?.generation == generation { state.windows[registrationId]?.timer = timer }
        }
    }

    /// Flushes one window now (its timer fired, or shutdown): removes it, then delivers its
    /// summary in the background. With `generation`, only that window, not a newer one.
    func flush(registrationId: String, generation: UInt64? = nil) {
        let removed = state.withLock { state -> Window? in
            guard let window = state.windows[registrationId], generation == nil || window.generation == generation else { return nil }
            return state.windows.removeValue(forKey: registrationId)
        }
        guard let window = removed else { return }
        window.timer?.cancel()
        let delivery = GatewayDelivery(registrationId: registrationId, hostFingerprint: window.hostFingerprint,
                                       latest: window.latest, count: window.count, anyNeedsInput: window.anyNeedsInput)
        let deliver = deliver
        deliveries.start { await deliver(delivery) }
    }

    /// Flushes every open window and waits until all deliveries have finished (orderly shutdown).
    func flushAll() async {
        for registrationId in state.withLock({ Array($0.windows.keys) }) { flush(registrationId: registrationId) }
        await deliveries.waitUntilIdle()
    }

    /// Open windows.
    var openWindows: Int { state.withLock { $0.windows.count } }

    /// Notifications waiting in open windows.
    var pendingNotifications: Int { state.withLock { $0.windows.values.reduce(0) { $0 + $1.count } } }
}
