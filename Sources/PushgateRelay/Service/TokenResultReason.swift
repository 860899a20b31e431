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

    /// APNs and FCM reasons that fault the push itself, not the service. (A 429 `TooManyRequests`
    /// or `QUOTA_EXCEEDED` is transient: the same push may go through after the provider's
    /// `Retry-After`.) FCM's `INVALID_ARGUMENT` that does not name the token faults the message;
    /// `SENDER_ID_MISMATCH`, the relay's Android account.
    static let refusedProviderReasons: Set<String> = [
        "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "DuplicateHeaders", "InvalidPushType",
        "PayloadEmpty", "PayloadTooLarge", "HTTP 413", "INVALID_ARGUMENT", "SENDER_ID_MISMATCH", androidUnconfigured,
    ]

    /// The reason of a push to a token bound as Android on a relay that no longer has its
    /// Android account: nothing to send it with.
    static let androidUnconfigured = "android_unconfigured"

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

/// Dead-token reasons that condemn a token only for the host that sent the push.
enum DeadTokenReason {
    /// A wrong `env` (not signed) or topic gives the APNs ones for a live token, and FCM's
    /// `INVALID_ARGUMENT` naming the token comes as well from a token bound with the wrong
    /// platform: only the sender's binding goes, so one host cannot cut a token off from the others.
    static let sendingHostOnly: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic", "INVALID_ARGUMENT"]
}
