import PushgateCore

/// The FCM client's access token: reused while more than 60 s of life remain, one shared
/// exchange for concurrent callers, nothing kept from a failed exchange, dropped on a 401.
///
/// - Important: protocol/hapi-push.md §8 step 3.
actor FCMAccessTokenCache {
    /// A token with this little life left (or less) is exchanged again.
    static let refreshMarginMilliseconds: Int64 = 60_000

    private let clock: any WallClock
    private let exchange: @Sendable () async throws -> OAuthAccessToken
    private var cached: OAuthAccessToken?
    private var running: Task<OAuthAccessToken, any Error>?

    /// `exchange` performs one OAuth exchange.
    init(clock: any WallClock, exchange: @escaping @Sendable () async throws -> OAuthAccessToken) {
        self.clock = clock
        self.exchange = exchange
    }

    /// The token to send with now, exchanging a new one when needed.
    func token() async throws -> OAuthAccessToken {
        if let cached, cached.expiresAtMilliseconds - clock.nowMilliseconds > Self.refreshMarginMilliseconds { return cached }
        if let running { return try await running.value }
        let task = Task { try await exchange() }
        running = task
        let result = await task.result
        // Only the caller that started the exchange keeps its result; the others just read it.
        running = nil
        if case .success(let token) = result { cached = token }
        return try result.get()
    }

    /// FCM answered 401 to `token`: forget it (unless a newer one replaced it already).
    func invalidate(_ token: OAuthAccessToken) {
        if cached == token { cached = nil }
    }
}
