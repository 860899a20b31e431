/// One push the host still owes a device: a (token, notification) not yet accepted, as a row
/// of `outbox` in `host.sqlite` (docs/host.md, "Outbox").
public struct OutboxEntry: Sendable, Equatable {
    /// Which sender sends it again; the raw value is the row's `kind`.
    public enum Kind: String, Sendable, CaseIterable {
        /// A content-free alert (``AlertOutboxSender``).
        case alert
        /// A sealed hapi envelope for one device (``HapiOutboxMessage``, sent by ``HapiFanout``).
        case hapi
        /// The `end` of a Live Activity (``LiveActivityEndSender``).
        case liveActivityEnd = "live-activity-end"
    }

    /// The row id; 0 until written. Ids grow, so the smallest is the oldest entry.
    public var id: Int64
    public var kind: Kind
    /// The device token (for hapi, the device row's token).
    public var token: String
    /// The event it belongs to (``EventId``), for logs and the hub's retry of a 503.
    public var eventId: String
    /// What the kind's sender needs to send it again, as JSON text.
    public var message: String
    /// When the first try was made (wall-clock milliseconds); the deadline counts from it.
    public var createdAtMs: Int64
    /// Tries made so far, the first one included.
    public var attempts: Int
    /// When the next try is due (wall-clock milliseconds).
    public var nextAttemptAtMs: Int64

    public init(id: Int64 = 0, kind: Kind, token: String, eventId: String, message: String, createdAtMs: Int64, attempts: Int = 1,
                nextAttemptAtMs: Int64) {
        self.id = id
        self.kind = kind
        self.token = token
        self.eventId = eventId
        self.message = message
        self.createdAtMs = createdAtMs
        self.attempts = attempts
        self.nextAttemptAtMs = nextAttemptAtMs
    }
}
