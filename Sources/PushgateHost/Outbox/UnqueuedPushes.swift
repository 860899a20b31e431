import PushgateCore
import Synchronization

/// The pushes of events answered 503 `store_unavailable`, by event id: the outbox could not
/// take them, so the hub posts the event again, and then only these are sent (the devices that
/// accepted it are not sent it twice). Kept in memory for an hour, at most ``capacity`` events
/// (docs/host.md, "Outbox").
final class UnqueuedPushes: Sendable {
    static let capacity = 1_000
    static let lifetimeMs: Int64 = 3_600_000

    /// The tokens still owed an event, by kind; nil: every device of that kind (nothing was sent).
    struct Owed: Sendable, Equatable {
        var alertTokens: Set<String>? = []
        var hapiTokens: Set<String>? = []

        /// Whether any device of a kind is owed: nil (every one) or a set that is not empty.
        static func anyOwed(_ tokens: Set<String>?) -> Bool { tokens?.isEmpty != true }
    }

    private let clock: any WallClock
    private let events = Mutex<[String: (owed: Owed, atMs: Int64)]>([:])

    init(clock: any WallClock) { self.clock = clock }

    /// Remembers what `entries` (of event `eventId`) owe, and that every device of a kind is
    /// owed it when that kind's dispatch failed on the store before sending; the oldest event
    /// goes over capacity.
    func remember(_ entries: [OutboxEntry], eventId: String, allAlerts: Bool, allHapi: Bool) {
        var owed = Owed()
        for entry in entries {
            switch entry.kind {
            case .alert: owed.alertTokens?.insert(entry.token)
            case .hapi: owed.hapiTokens?.insert(entry.token)
            case .liveActivityEnd: break
            }
        }
        if allAlerts { owed.alertTokens = nil }
        if allHapi { owed.hapiTokens = nil }
        let nowMs = clock.nowMilliseconds
        events.withLock { events in
            events = events.filter { nowMs - $0.value.atMs < Self.lifetimeMs }
            if events.count >= Self.capacity, let oldest = events.min(by: { $0.value.atMs < $1.value.atMs }) {
                events.removeValue(forKey: oldest.key)
            }
            events[eventId] = (owed, nowMs)
        }
    }

    /// What event `eventId` still owes, once: nil when it owes nothing remembered.
    func take(_ eventId: String) -> Owed? {
        let nowMs = clock.nowMilliseconds
        return events.withLock { events in
            guard let found = events.removeValue(forKey: eventId), nowMs - found.atMs < Self.lifetimeMs else { return nil }
            return found.owed
        }
    }
}
