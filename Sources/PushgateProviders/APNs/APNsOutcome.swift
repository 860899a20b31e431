/// What became of one push.
///
/// - Important: dead = HTTP 410 or reason `BadDeviceToken`, `Unregistered`, `DeviceTokenNotForTopic`;
///   everything else that is not a 200 is transient and the token's bindings stay (protocol/signed-relay.md §7).
public enum APNsOutcome: Sendable, Equatable {
    /// APNs accepted the push.
    case delivered
    /// The token will never work again: delete it. `reason` is APNs' reason.
    case dead(reason: String)
    /// This push failed (throttling, server trouble, timeout, transport); the token stays.
    /// `reason` is APNs' reason, `HTTP <status>`, or the transport failure's kind; `failure` says
    /// whether sending it again may help.
    case transient(reason: String, failure: ProviderFailure)
}
