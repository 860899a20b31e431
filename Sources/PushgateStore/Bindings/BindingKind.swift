/// Which kind of device token a binding is for. Kinds never mix: the same token string
/// bound as two kinds is two independent tokens.
///
/// - Important: an alert send must never reach a Live Activity token and the reverse
///   (protocol/signed-relay.md §3, §10 line 24).
public enum BindingKind: String, Sendable, CaseIterable {
    /// A regular APNs device token (`register-token`, platform `ios`).
    case alert
    /// An FCM registration token of the signed routes' Android app (`register-token`, platform
    /// `android`; docs/relay.md "Android tokens").
    case android
    /// An ActivityKit push token (`register-live-activity-token`).
    case liveActivity = "liveactivity"
    /// An ActivityKit push-to-start token (`register-live-activity-token` with `kind:"start"`;
    /// docs/relay.md "Live Activity"): only a `start` reaches it, and a start reaches nothing else.
    case liveActivityStart = "liveactivitystart"
}
