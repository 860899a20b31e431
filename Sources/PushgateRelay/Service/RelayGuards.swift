import PushgateCore
import PushgateStore

/// The relay's shared limits: per-IP and per-`serverId` rate limits, new tokens per IP, the
/// replay set and the in-flight limiter, sized from the configuration.
///
/// - Important: docs/relay.md "Rate limits", "Replay set", "Bindings".
public final class RelayGuards: Sendable {
    let registerByIP: RateLimiter
    let sendByIP: RateLimiter
    let sendByServer: RateLimiter
    /// New tokens per client IP per hour (`NEW_TOKENS_PER_IP_PER_HOUR`), refilling continuously.
    let newTokensByIP: TokenBucketLimiter
    /// Starts per push-to-start token per hour, whichever hosts send them (docs/relay.md "Live
    /// Activity"): in this process's memory, forgotten on restart. Read through ``startWaitMs(token:nowMs:)``.
    private let startsByToken: RateLimiter
    let replay: ReplaySet
    let inFlightLimiter: InFlightLimiter

    /// The starts one push-to-start token may receive per hour: any host bound to the token could
    /// otherwise spend the device's own start budget.
    static let startsPerTokenPerHour = 6

    /// Counts a start to `token` at `nowMs`: nil when it may go, else the milliseconds until it
    /// may. A token is counted by its lower-case form: the hex of one device token in another
    /// letter case names the same device, and must not bring a budget of its own.
    func startWaitMs(token: String, nowMs: Int64) -> Int64? {
        startsByToken.waitMs(counting: token.lowercased(), nowMs: nowMs)
    }

    public init(configuration: RelayConfiguration, replay: ReplaySet) {
        let maxKeys = configuration.rateLimitMaxKeys ?? RateLimiter.defaultMaxKeys
        registerByIP = RateLimiter(limit: configuration.registerLimitPerMinute, maxKeys: maxKeys)
        sendByIP = RateLimiter(limit: configuration.sendLimitPerMinute, maxKeys: maxKeys)
        sendByServer = RateLimiter(limit: configuration.serverSendLimitPerMinute, maxKeys: maxKeys)
        newTokensByIP = TokenBucketLimiter(capacity: configuration.newTokensPerIPPerHour,
                                           refill: configuration.newTokensPerIPPerHour, everyMs: 3_600_000,
                                           maxKeys: configuration.rateLimitMaxKeys ?? TokenBucketLimiter.defaultMaxKeys)
        startsByToken = RateLimiter(limit: Self.startsPerTokenPerHour, windowMs: 3_600_000, maxKeys: maxKeys)
        self.replay = replay
        inFlightLimiter = InFlightLimiter(limit: configuration.maxInFlight)
    }

    /// The per-IP limit of `route`, checked before its body is read.
    func allowsClient(_ ip: String, route: RelayRoute, nowMs: Int64) -> Bool {
        if route.isRegistration { return registerByIP.allow(ip, nowMs: nowMs) }
        if route.delivers { return sendByIP.allow(ip, nowMs: nowMs) }
        return true
    }

    /// Drops expired limiter keys and replay keys; the scheduler runs this every few seconds.
    func purge(nowMs: Int64) async throws {
        registerByIP.purge(nowMs: nowMs)
        sendByIP.purge(nowMs: nowMs)
        sendByServer.purge(nowMs: nowMs)
        startsByToken.purge(nowMs: nowMs)
        try await replay.purge(nowMs: nowMs)
    }
}
