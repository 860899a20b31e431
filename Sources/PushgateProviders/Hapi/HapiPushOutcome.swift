/// What became of one encrypted-path send to one device, as a host or relay acts on it.
///
/// - Important: protocol/hapi-push.md terms ("Outcome of one send") and the relay mapping of §8:
///   `sent` → 200, `dead` → 410, a provider throttle → 429, every other failure → 502.
public enum HapiPushOutcome: Sendable, Equatable {
    /// The provider accepted the message (not a handset receipt).
    case sent
    /// The token is confirmed dead: the host deletes the row. `reason` is the provider's.
    case dead(reason: String)
    /// Anything else; the row is kept. `failure` says whether sending it again may help
    /// (a provider 429 is `.throttled`).
    case failed(reason: String, failure: ProviderFailure = .rejected)

    /// A short label for logs and metrics: `sent`, `dead` or `failed`.
    public var label: String {
        switch self {
        case .sent: "sent"
        case .dead: "dead"
        case .failed: "failed"
        }
    }
}
