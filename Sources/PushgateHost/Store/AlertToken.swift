/// A phone's alert device token as the host keeps it.
public struct AlertToken: Sendable, Equatable {
    /// Which push service the token belongs to; the raw value is the `platform` of the API, the
    /// import, `alert_tokens` and the relay's `register-token`.
    public enum Platform: String, Sendable, CaseIterable {
        /// An APNs device token: even-length hex.
        case ios
        /// An FCM registration token of the app's Android build (docs/host.md, "Android alert tokens").
        case android
    }

    /// The token as the phone sent it, case preserved.
    public var token: String
    /// The phone app instance that registered it, when it said.
    public var client: String?
    public var platform: Platform
    /// The locale tag as the phone sent it (normalised only when composing).
    public var locale: String?
    /// `production` or `sandbox` (APNs only: an Android token's is stored but means nothing).
    public var environment: String
    public var createdAtMs: Int64
    public var lastSeenAtMs: Int64

    public init(token: String, client: String? = nil, platform: Platform = .ios, locale: String? = nil,
                environment: String = "production", createdAtMs: Int64 = 0, lastSeenAtMs: Int64 = 0) {
        self.token = token
        self.client = client
        self.platform = platform
        self.locale = locale
        self.environment = environment
        self.createdAtMs = createdAtMs
        self.lastSeenAtMs = lastSeenAtMs
    }
}
