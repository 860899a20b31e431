import PushgateCore
import Synchronization

/// Per-session cooldown and debounce in front of the dispatcher, driven by the scheduler.
///
/// - Important: protocol/host-api.md §3 and §7 — `ready` at most once per 5 s per session; `question` and
///   `permission` debounced 500 ms per session and type, the last event of the window is sent.
public final class EventThrottle: Sendable {
    /// What to do with a submitted event.
    public enum Decision: Sendable, Equatable {
        /// Dispatch it now.
        case dispatch
        /// Dropped: a `ready` for this session went out less than ``readyCooldownMs`` ago.
        case cooldown
        /// Held; the last event of the window is handed to `fire` when it closes.
        case debounced
    }

    public static let readyCooldownMs: Int64 = 5_000
    public static let debounceMs: Int64 = 500
    static let sweepFloor = 1_024

    private struct State {
        var lastReady: [String: Int64] = [:]
        /// `lastReady` is swept when it reaches this size; after a sweep the mark doubles the
        /// survivors, so a sweep costs O(1) per event however many sessions are cooling down.
        var sweepAt = EventThrottle.sweepFloor
        var pending: [String: HostEvent] = [:]
    }

    private let scheduler: any Scheduler
    private let fire: @Sendable (HostEvent) -> Void
    private let state = Mutex(State())

    /// `fire` gets each debounced event when its window closes (on the scheduler's queue).
    public init(scheduler: any Scheduler, fire: @escaping @Sendable (HostEvent) -> Void) {
        self.scheduler = scheduler
        self.fire = fire
    }

    public func submit(_ event: HostEvent) -> Decision {
        switch event.type {
        case .ready: return throttleReady(event)
        case .question, .permission: return debounce(event)
        default: return .dispatch
        }
    }

    private func throttleReady(_ event: HostEvent) -> Decision {
        let now = scheduler.clock.nowMilliseconds
        return state.withLock { state in
            if let last = state.lastReady[event.sessionId], now - last < Self.readyCooldownMs { return .cooldown }
            // Forget sessions whose cooldown is over so the map stays small.
            if state.lastReady.count >= state.sweepAt {
                state.lastReady = state.lastReady.filter { now - $0.value < Self.readyCooldownMs }
                state.sweepAt = max(Self.sweepFloor, 2 * state.lastReady.count)
            }
            state.lastReady[event.sessionId] = now
            return .dispatch
        }
    }

    private func debounce(_ event: HostEvent) -> Decision {
        let key = Self.windowKey(event.type, event.sessionId)
        let opened = state.withLock { state in
            defer { state.pending[key] = event }
            return state.pending[key] == nil
        }
        if opened {
            scheduler.schedule(afterMs: Self.debounceMs) { self.closeWindow(key) }
        }
        return .debounced
    }

    /// Drops the session's prompts still in their window (those of `requestId` only, when
    /// given): a `resolved` event answered them before they were sent.
    public func cancelPrompts(sessionId: String, requestId: String?) {
        state.withLock { state in
            for type in [EventType.question, .permission] {
                let key = Self.windowKey(type, sessionId)
                guard let pending = state.pending[key], requestId == nil || pending.requestId == requestId else { continue }
                state.pending.removeValue(forKey: key)
            }
        }
    }

    /// The debounce window of `type` in `sessionId`.
    private static func windowKey(_ type: EventType, _ sessionId: String) -> String { "\(type.rawValue)\u{0}\(sessionId)" }

    private func closeWindow(_ key: String) {
        if let last = state.withLock({ $0.pending.removeValue(forKey: key) }) { fire(last) }
    }
}
