/// Why a row of a `send` or `live-activity` answer is not ok: the `reason` member, a Pushgate
/// extension OpenChamber hosts ignore.
///
/// - Important: docs/relay.md "Send results".
enum TokenResultReason: String, Sendable {
    /// This host holds no (live) binding of the token: register it again.
    case notBound = "not_bound"
    /// Provider or relay trouble: worth retrying.
    case transient
    /// The push itself was refused (payload, a per-token limit): retrying it unchanged will not help.
    case refused
    /// The provider condemned the token (`drop:true`).
    case dead

    /// APNs reasons that fault the push or the device's pace, not the service.
    static let refusedProviderReasons: Set<String> = [
        "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "DuplicateHeaders", "InvalidPushType",
        "PayloadEmpty", "PayloadTooLarge", "TooManyRequests", "HTTP 413",
    ]

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
