/// How the fake FCM answers an otherwise valid send to one registration token.
public struct FakeFCMScript: Sendable, Equatable {
    /// The error to answer with; `nil` accepts the message (200).
    public var error: FakeFCMError?
    /// How long the answer waits, in milliseconds, without holding up other streams.
    public var delayMilliseconds: Int
    /// A `retry-after` header with this many seconds (FCM sends one with 429 and 503).
    public var retryAfterSeconds: Int?

    public init(_ error: FakeFCMError?, delayMilliseconds: Int = 0, retryAfterSeconds: Int? = nil) {
        self.error = error
        self.delayMilliseconds = delayMilliseconds
        self.retryAfterSeconds = retryAfterSeconds
    }
}
