/// How the fake APNs answers an otherwise valid request for one device token.
public struct ScriptedResponse: Sendable, Equatable {
    /// The HTTP status (200, 410, 429, 500, …).
    public var status: Int
    /// The `reason` sent in the body; `nil` sends no body (use it with 200 only).
    public var reason: APNsReason?
    /// How long the answer waits, in milliseconds, without holding up other streams.
    public var delayMilliseconds: Int
    /// A `retry-after` header with this many seconds (APNs sends one with 429 and 503).
    public var retryAfterSeconds: Int?

    public init(status: Int, reason: APNsReason? = nil, delayMilliseconds: Int = 0, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.reason = reason
        self.delayMilliseconds = delayMilliseconds
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// 410 `Unregistered`: the token is dead.
    public static let unregistered = ScriptedResponse(status: 410, reason: .unregistered)
    /// 200 after `milliseconds`.
    public static func success(afterMilliseconds milliseconds: Int) -> ScriptedResponse {
        ScriptedResponse(status: 200, delayMilliseconds: milliseconds)
    }
}
