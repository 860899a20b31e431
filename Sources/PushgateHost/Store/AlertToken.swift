/// A phone's alert device token as the host keeps it.
public struct AlertToken: Sendable, Equatable {
    /// Hex device token, case preserved.
    public var token: String
    /// The phone app instance that registered it, when it said.
    public var client: String?
    public var platform: String
    /// The locale tag as the phone sent it (normalised only when composing).
    public var locale: String?
    /// `production` or `sandbox`.
    public var environment: String
    public var createdAtMs: Int64
    public var lastSeenAtMs: Int64

    public init(token: String, client: String? = nil, platform: String = "ios", locale: String? = nil,
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
