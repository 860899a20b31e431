import PushgateProviders

/// What became of one token in a batch.
public enum TokenOutcome: Sendable, Equatable {
    /// The provider accepted it.
    case accepted
    /// Not sent or not accepted this time; the token stays, and `retry` says whether the
    /// outbox sends the push again (docs/host.md, "Outbox").
    case failed(RetryAdvice)
    /// The provider said the token is dead; the host forgets it.
    case dropped
}

/// Whether a push that failed may be sent again unchanged, and not before when.
public struct RetryAdvice: Sendable, Equatable {
    public var retryable: Bool
    /// The provider's or relay's `Retry-After`, when it gave one.
    public var afterSeconds: Int?

    public init(retryable: Bool, afterSeconds: Int? = nil) {
        self.retryable = retryable
        self.afterSeconds = afterSeconds
    }

    /// Trouble on the way (no answer, a 5xx, a registration that failed): try again later.
    public static let later = RetryAdvice(retryable: true)
    /// The push itself was refused: the same push will not fare better.
    public static let never = RetryAdvice(retryable: false)

    /// The advice of a provider failure seen by this host's own APNs or FCM client: every
    /// failure but a refusal is retried (each of the host's alerts and Live Activity ends
    /// replaces itself on the phone, so one that may have arrived is safe to send again).
    public init(_ failure: ProviderFailure) {
        self.init(retryable: failure != .rejected, afterSeconds: failure.retryAfterSeconds)
    }
}
