import PushgateCore

/// What became of one event: the answer of `POST /api/events`.
///
/// - Important: protocol/host-api.md §5 — `nativeDelivered` is true only when at least one native send was
///   accepted; the hub uses it to skip its Web Push for the same event.
public struct DispatchResult: Sendable, Equatable {
    /// Why an event produced no push; `visible`: a desktop shows its session (docs/host.md,
    /// "Desktop presence").
    public enum Suppression: String, Sendable {
        case cooldown, child, system, visible
    }

    /// The event's id (``EventId``), which its pushes carry. A debounced event answers with its
    /// own id; the push, when the window closes, carries the id of the window's last event.
    public var eventId: String
    public var accepted = 0
    public var failed = 0
    public var dropped = 0
    public var suppressed: Suppression?
    /// The badge the pushes carried (or the current badge when nothing was sent).
    public var badge = 0
    /// Set on a debounced event: the push, if any, leaves when its window closes (Pushgate extension).
    public var pending = false
    /// Of `failed`: pushes written to the outbox, sent again later (Pushgate extension;
    /// docs/host.md, "Outbox").
    public var queued = 0
    /// The outbox could not take the pushes owed (a full disk): the API answers 503
    /// `store_unavailable` and the hub posts the event again (docs/host.md, "Outbox").
    public var storeUnavailable = false
    /// The outbox entries of the pushes owed, until written.
    var owed: [OutboxEntry] = []

    public var nativeDelivered: Bool { accepted > 0 }

    public init(eventId: String, accepted: Int = 0, failed: Int = 0, dropped: Int = 0, suppressed: Suppression? = nil, badge: Int = 0,
                pending: Bool = false) {
        self.eventId = eventId
        self.accepted = accepted
        self.failed = failed
        self.dropped = dropped
        self.suppressed = suppressed
        self.badge = badge
        self.pending = pending
    }

    /// The wire form; `pending` appears only when true, `error` only with ``storeUnavailable``.
    public var json: JSONValue {
        var object = JSONObject([
            ("eventId", .string(eventId)), ("accepted", .integer(Int64(accepted))), ("failed", .integer(Int64(failed))),
            ("dropped", .integer(Int64(dropped))),
            ("suppressed", suppressed.map { .string($0.rawValue) } ?? .null), ("badge", .integer(Int64(badge))),
            ("nativeDelivered", .bool(nativeDelivered)), ("queued", .integer(Int64(queued))),
        ])
        if storeUnavailable { object["error"] = "store_unavailable" }
        if pending { object["pending"] = true }
        return .object(object)
    }
}
