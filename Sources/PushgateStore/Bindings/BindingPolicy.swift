/// The caps a binding store enforces on every register, from the relay's settings.
///
/// - Important: docs/relay.md, "Bindings", and docs/security.md (the token table and the
///   bindings as attack surfaces: why each cap exists).
public struct BindingPolicy: Sendable, Equatable {
    /// Distinct (token, kind) pairs the store may hold (`MAX_TOKENS`, a storage guard).
    public var maxTokens: Int
    /// Tokens one `serverId` may hold, every kind together (`MAX_TOKENS_PER_HOST`).
    public var maxTokensPerHost: Int
    /// A binding refreshed within this long is never evicted (`BINDING_PROTECT_HOURS`).
    public var protectMs: Int64
    /// New `serverId`s that may join a token other hosts hold, within 24 hours
    /// (`NEW_BINDINGS_PER_TOKEN_PER_DAY`); a token's first host is not counted.
    public var newBindingsPerDay: Int
    /// A binding not refreshed for this long no longer delivers and is purged (`BINDING_TTL_DAYS`).
    public var ttlMs: Int64

    /// The window of ``newBindingsPerDay``.
    public static let admissionWindowMs: Int64 = 86_400_000

    public init(maxTokens: Int = 10_000_000, maxTokensPerHost: Int = 2_000, protectMs: Int64 = 24 * 3_600_000,
                newBindingsPerDay: Int = 4, ttlMs: Int64 = 180 * 86_400_000) {
        precondition(maxTokens >= 0 && maxTokensPerHost >= 0 && protectMs >= 0 && newBindingsPerDay >= 0 && ttlMs > 0,
                     "binding caps must not be negative")
        self.maxTokens = maxTokens
        self.maxTokensPerHost = maxTokensPerHost
        self.protectMs = protectMs
        self.newBindingsPerDay = newBindingsPerDay
        self.ttlMs = ttlMs
    }
}
