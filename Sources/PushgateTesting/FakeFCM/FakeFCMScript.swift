/// How the fake FCM answers an otherwise valid send to one registration token.
public struct FakeFCMScript: Sendable, Equatable {
    /// The error to answer with; `nil` accepts the message (200).
    public var error: FakeFCMError?
    /// How long the answer waits, in milliseconds, without holding up other streams.
    public var delayMilliseconds: Int

    public init(_ error: FakeFCMError?, delayMilliseconds: Int = 0) {
        self.error = error
        self.delayMilliseconds = delayMilliseconds
    }
}
