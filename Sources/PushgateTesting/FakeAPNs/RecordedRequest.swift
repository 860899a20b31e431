import PushgateCore

/// One request the fake APNs answered or reset, with the answer it gave.
public struct RecordedRequest: FakeProviderRecord {
    public let method: String
    public let path: String
    /// The regular headers in arrival order (pseudo-headers left out).
    public let headers: [(name: String, value: String)]
    /// The payload, when it parsed as JSON.
    public let payload: JSONValue?
    /// The status answered; 0 when the stream was reset instead.
    public let status: Int
    public let reason: APNsReason?
    /// The device token from the path, when the path had the `/3/device/<token>` form.
    public let deviceToken: String?
    /// The `apns-id` sent back (for a reset stream, the one its answer would have carried).
    public let apnsId: String
    /// Whether the stream was reset (RST_STREAM) instead of answered (``FakeProvider/resetStreams(every:)``).
    public let reset: Bool

    /// `apns-push-type`, as sent.
    public var pushType: String? { header("apns-push-type") }
    /// `apns-priority`, as sent; `nil` when absent (APNs then takes 10).
    public var priority: String? { header("apns-priority") }

    /// The record line `pushgate-dev fake-apns --record` writes:
    /// `{"path","headers":{…},"payload":…,"status","reason"}` (compact; `reason` null on success;
    /// a reset stream has `"status":null` and ends with `"reset":true`).
    /// The provider token is replaced by `[redacted]` so record files never hold a usable JWT.
    public func recordLine() -> String {
        recordLine([
            ("path", .string(path)),
            ("headers", .object(redactedHeaders)),
            ("payload", payload ?? .null),
            ("status", recordedStatus),
            ("reason", reason.map { .string($0.rawValue) } ?? .null),
        ])
    }
}
