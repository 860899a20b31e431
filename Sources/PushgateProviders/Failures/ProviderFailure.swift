import PushgateHTTP

/// What a push that was not accepted means for sending it again (docs/relay.md "Retries").
public enum ProviderFailure: Sendable, Equatable {
    /// The provider answered 500 or 503: it did not take the push, another try may succeed
    /// (after its `Retry-After`, when it gave one).
    case unavailable(retryAfterSeconds: Int?)
    /// The request never reached the provider (GOAWAY or REFUSED_STREAM, no connection, a
    /// deadline that passed while it waited): another try cannot deliver it twice.
    case notSent
    /// The request was written and no answer came (deadline, lost connection, reset stream):
    /// the provider may have taken it, so another try may deliver it twice.
    case unanswered
    /// 429: the provider asks to slow down; `retryAfterSeconds` is its `Retry-After`, when given.
    case throttled(retryAfterSeconds: Int?)
    /// Any other refusal, or a request ended here (shut down, cancelled, malformed): the same
    /// push will not fare better now.
    case rejected

    /// The longest `Retry-After` taken from a provider: a day. A longer one is not believed.
    public static let maxRetryAfterSeconds = 86_400

    /// The failure of a request that got no answer.
    public static func of(_ error: any Error) -> ProviderFailure {
        guard let error = error as? HTTP2ClientError else { return .rejected }
        switch error.kind {
        case .invalidRequest, .shutdown, .cancelled: return .rejected  // ended here: not worth another try
        default: return error.mayHaveReachedServer ? .unanswered : .notSent
        }
    }

    /// The failure an answer other than success means.
    public static func of(status: Int, headers: [HTTP2Header]) -> ProviderFailure {
        switch status {
        case 500, 503: return .unavailable(retryAfterSeconds: retryAfterSeconds(headers))
        case 429: return .throttled(retryAfterSeconds: retryAfterSeconds(headers))
        default: return .rejected
        }
    }

    /// `Retry-After` in delta-seconds (the form APNs and FCM use); an HTTP date or junk is ignored.
    static func retryAfterSeconds(_ headers: [HTTP2Header]) -> Int? {
        guard let value = headers.first(where: { $0.name == "retry-after" })?.value,
              let seconds = Int(value), (0...maxRetryAfterSeconds).contains(seconds) else { return nil }
        return seconds
    }

    /// The provider's `Retry-After`, when it gave one.
    public var retryAfterSeconds: Int? {
        switch self {
        case .unavailable(let seconds), .throttled(let seconds): seconds
        case .notSent, .unanswered, .rejected: nil
        }
    }
}
