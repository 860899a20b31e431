import PushgateCore
import PushgateStore

/// The relay's shared limits: per-IP and per-`serverId` rate limits, the replay set (in
/// memory, or shared through PostgreSQL) and the in-flight gate, sized from the configuration.
///
/// - Important: relay-protocol.md §2 (rate limits, replay, in-flight gate).
public final class RelayGuards: Sendable {
    let registerByIP: RateLimiter
    let sendByIP: RateLimiter
    let sendByServer: RateLimiter
    let replay: any ReplayKeyStore
    let gate: InFlightGate

    /// - Parameter replay: the shared replay set, or `nil` for one in this process.
    public init(configuration: RelayConfiguration, replay: (any ReplayKeyStore)? = nil) {
        registerByIP = RateLimiter(limit: configuration.registerLimitPerMinute)
        sendByIP = RateLimiter(limit: configuration.sendLimitPerMinute)
        sendByServer = RateLimiter(limit: configuration.serverSendLimitPerMinute)
        self.replay = replay ?? ReplaySet(ttlMs: configuration.replayMs, maxEntries: configuration.maxReplayEntries)
        gate = InFlightGate(limit: configuration.maxInFlight)
    }

    /// The per-IP limit of `route`, checked before its body is read.
    func allowsClient(_ ip: String, route: RelayRoute, nowMs: Int64) -> Bool {
        if route.isRegistration { return registerByIP.allow(ip, nowMs: nowMs) }
        if route == .send || route == .liveActivity { return sendByIP.allow(ip, nowMs: nowMs) }
        return true
    }

    /// Drops expired limiter keys and replay keys; the scheduler runs this every few seconds.
    func purge(nowMs: Int64) async throws {
        registerByIP.purge(nowMs: nowMs)
        sendByIP.purge(nowMs: nowMs)
        sendByServer.purge(nowMs: nowMs)
        try await replay.purge(nowMs: nowMs)
    }
}
