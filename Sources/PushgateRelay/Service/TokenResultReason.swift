/// Why a row of a `send` or `live-activity` answer is not ok: the `reason` member, a Pushgate
/// extension OpenChamber hosts ignore.
///
/// - Important: docs/relay.md "Send results".
enum TokenResultReason: String, Sendable {
    /// This host holds no (live) binding of the token: register it again.
    case notBound = "not_bound"
    /// Provider or relay trouble: worth retrying.
    case transient
    /// The push itself was refused (payload, headers): retrying it unchanged will not help.
    case refused
    /// The provider condemned the token (`drop:true`).
    case dead

    /// APNs reasons that fault the push itself, not the service. (A 429 `TooManyRequests` is
    /// transient: the same push may go through after the provider's `Retry-After`.)
    static let refusedProviderReasons: Set<String> = [
        "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "DuplicateHeaders", "InvalidPushType",
        "PayloadEmpty", "PayloadTooLarge", "HTTP 413",
    ]

    /// The row's `retryable`: whether the host may send the same push again (after registering
    /// the token again, for `not_bound`).
    var isRetryable: Bool {
        switch self {
        case .notBound, .transient: true
        case .refused, .dead: false
        }
    }

    /// The reason of a provider failure that did not condemn the token.
    static func of(providerReason: String) -> TokenResultReason {
        refusedProviderReasons.contains(providerReason) ? .refused : .transient
    }
}

/// APNs dead-token reasons that condemn a token only for the host that sent the push.
enum APNsDeadReason {
    /// A wrong `env` (not signed) or topic gives these for a live token: only the sender's
    /// binding goes, so one host cannot cut a token off from the others.
    static let sendingHostOnly: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic"]
}
