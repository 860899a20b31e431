import PushgateCore

/// What the pushes of one change or refresh tick did, counted per token.
public struct LiveActivityDelivery: Sendable, Equatable {
    /// Requests sent (relay requests, or direct APNs batches).
    public var requests = 0
    public var accepted = 0
    /// Not registered on the relay, not sent, or not accepted; the token keeps its rows and is tried again.
    public var failed = 0
    /// The provider said the token is dead; it was removed.
    public var dropped = 0
    /// Of `failed`: `end` pushes written to the host's outbox, sent again from there.
    public var queued = 0

    public init(requests: Int = 0, accepted: Int = 0, failed: Int = 0, dropped: Int = 0) {
        self.requests = requests
        self.accepted = accepted
        self.failed = failed
        self.dropped = dropped
    }

    /// `{"requests","accepted","failed","dropped","queued"}`.
    public var json: JSONObject {
        JSONObject([("requests", .integer(Int64(requests))), ("accepted", .integer(Int64(accepted))),
                    ("failed", .integer(Int64(failed))), ("dropped", .integer(Int64(dropped))), ("queued", .integer(Int64(queued)))])
    }
}
