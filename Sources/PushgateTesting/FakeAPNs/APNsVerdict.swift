import PushgateCore

/// What the fake APNs decided about one request before any per-token script applies.
public struct APNsVerdict: Sendable, Equatable {
    /// The HTTP status: 200, or the error status APNs uses for ``reason``.
    public var status: Int
    /// The error reason, `nil` on success.
    public var reason: APNsReason?
    /// The device token named by the path, when the path had that form.
    public var deviceToken: String?
    /// The payload, when it parsed as JSON.
    public var payload: JSONValue?

    public init(status: Int, reason: APNsReason?, deviceToken: String? = nil, payload: JSONValue? = nil) {
        self.status = status
        self.reason = reason
        self.deviceToken = deviceToken
        self.payload = payload
    }
}
