import PushgateCore

/// One request the fake FCM answered or reset, with the answer it gave.
public struct FakeFCMRecord: FakeProviderRecord {
    /// Which endpoint the request was for.
    public enum Kind: String, Sendable {
        /// `POST /token`: an OAuth exchange.
        case tokenExchange = "token"
        /// `POST /v1/projects/<id>/messages:send`.
        case send
    }

    public let kind: Kind
    public let method: String
    public let path: String
    /// The regular headers in arrival order (pseudo-headers left out).
    public let headers: [(name: String, value: String)]
    /// The status answered; 0 when the stream was reset instead.
    public let status: Int
    /// `error.status` of a refused send, or the OAuth `error` of a refused exchange; `nil` on success.
    public let error: String?
    /// The FcmError `errorCode` of a refused send, when it had one.
    public let fcmErrorCode: String?
    /// The project named by a send's path.
    public let projectId: String?
    /// `message.token` of a send.
    public let deviceToken: String?
    /// The `message` object of a send, when the body had one.
    public let message: JSONObject?
    /// Whether the stream was reset (RST_STREAM) instead of answered (``FakeProvider/resetStreams(every:)``).
    public let reset: Bool

    /// `message.notification.title` of a notification message: what the phone shows as its title.
    public var notificationTitle: String? { message?["notification"]?["title"]?.stringValue }
    /// `message.notification.body` of a notification message.
    public var notificationBody: String? { message?["notification"]?["body"]?.stringValue }
    /// `message.android.notification` of a notification message (`tag`, `channel_id`, `notification_count`…).
    public var androidNotification: JSONObject? { message?["android"]?["notification"]?.objectValue }

    /// The record line `pushgate-dev fake-fcm --record` writes:
    /// `{"kind","path","headers":{…},"message":…,"status","error"}` (compact; `message` and `error`
    /// null when absent; a reset stream has `"status":null` and ends with `"reset":true`). Access
    /// tokens are written as `[redacted]`; exchange bodies (which hold the signed assertion) are
    /// not written at all.
    public func recordLine() -> String {
        recordLine([
            ("kind", .string(kind.rawValue)),
            ("path", .string(path)),
            ("headers", .object(redactedHeaders)),
            ("message", message.map(JSONValue.object) ?? .null),
            ("status", recordedStatus),
            ("error", error.map(JSONValue.string) ?? .null),
        ])
    }
}
