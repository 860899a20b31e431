import PushgateCore

/// One request the fake APNs answered, with the answer it gave.
public struct RecordedRequest: FakeProviderRecord {
    public let method: String
    public let path: String
    /// The regular headers in arrival order (pseudo-headers left out).
    public let headers: [(name: String, value: String)]
    /// The payload, when it parsed as JSON.
    public let payload: JSONValue?
    public let status: Int
    public let reason: APNsReason?
    /// The device token from the path, when the path had the `/3/device/<token>` form.
    public let deviceToken: String?
    /// The `apns-id` sent back.
    public let apnsId: String

    /// The record line `pushgate fake-apns --record` writes:
    /// `{"path","headers":{…},"payload":…,"status","reason"}` (compact; `reason` null on success).
    /// The provider token is replaced by `[redacted]` so record files never hold a usable JWT.
    public func recordLine() -> String {
        let line: JSONValue = .object(JSONObject([
            ("path", .string(path)),
            ("headers", .object(redactedHeaders)),
            ("payload", payload ?? .null),
            ("status", .integer(Int64(status))),
            ("reason", reason.map { .string($0.rawValue) } ?? .null),
        ]))
        return line.serialized()
    }
}
