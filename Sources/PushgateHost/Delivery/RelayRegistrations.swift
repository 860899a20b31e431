import PushgateCore
import PushgateProviders

/// Binds tokens of one kind to this host on the signed relay, with the host's registration
/// cache, and repairs bindings the relay lost; shared by the alert and the Live Activity transports.
///
/// - Important: protocol/host-api.md §5 — registrations are cached by (relay URL, token, kind), run at most
///   16 at a time, and a token whose registration failed is skipped and retried next time; a
///   registration older than ``refreshAfterMs`` is made again before the token's next push; a
///   `not_bound` row is repaired at once, at most once per token per 10 minutes
///   (``RegistrationHolds``).
struct RelayRegistrations: Sendable {
    /// The relay's token kinds; the raw value is the cache's `kind`.
    enum Kind: String, Sendable {
        /// An iOS alert token (`register-token`, platform `ios`).
        case alert
        /// An Android (FCM) alert token (`register-token`, platform `android`).
        case androidAlert = "alert.android"
        case liveActivity = "liveactivity"
        /// A push-to-start token (`register-live-activity-token`, kind `start`).
        case liveActivityStart = "liveactivity.start"

        /// How log lines name such a token.
        var noun: String {
            switch self {
            case .alert: "token"
            case .androidAlert: "Android token"
            case .liveActivity: "Live Activity token"
            case .liveActivityStart: "push-to-start token"
            }
        }
    }

    /// The most registrations in flight at once.
    static let concurrency = 16
    /// A registration this old is made again before the token's next push: the relay purges
    /// bindings not refreshed for 180 days, so an active one never gets near that.
    static let refreshAfterMs: Int64 = 30 * 24 * 60 * 60 * 1_000

    let kind: Kind
    let client: SignedRelayClient
    let store: HostStore
    let clock: any WallClock
    let logger: Logger
    private let holds: RegistrationHolds

    init(kind: Kind, client: SignedRelayClient, store: HostStore, clock: any WallClock, logger: Logger) {
        self.kind = kind
        self.client = client
        self.store = store
        self.clock = clock
        self.logger = logger
        holds = RegistrationHolds(clock: clock)
    }

    /// Those of `tokens` that are registered, registering the others first (unless held). A
    /// registration due for its refresh is made again; the token stays deliverable if that
    /// fails, as its binding most likely still exists (and a lost one is repaired on `not_bound`).
    func prepare(_ tokens: [String]) async -> Set<String> {
        let times = (try? await store.registrationTimes(relayURL: client.baseURL, tokens: tokens, kind: kind.rawValue)) ?? [:]
        let refreshBefore = clock.nowMilliseconds - Self.refreshAfterMs
        var due = tokens.filter { (times[$0] ?? .min) <= refreshBefore }
        if !due.isEmpty {
            let held = holds.held(among: due)
            due.removeAll { held.contains($0) }
        }
        let registered = await forEachConcurrently(due, limit: Self.concurrency) { token in
            await register(token) ? token : nil
        }
        return Set(times.keys).union(registered.compactMap { $0 })
    }

    /// Registers one token now, whatever the cache and the holds say; caches and returns `true`
    /// on success. A `binding_limit` refusal holds the token (not registered again by the host
    /// itself for 10 minutes), and so does `unsupported_platform`: a relay without Android
    /// tokens would refuse every try until its operator sets it up.
    func register(_ token: String) async -> Bool {
        do {
            let reply: RelayReply = switch kind {
            case .alert: try await client.registerToken(token)
            case .androidAlert: try await client.registerToken(token, platform: AlertToken.Platform.android.rawValue)
            case .liveActivity: try await client.registerLiveActivityToken(token)
            case .liveActivityStart: try await client.registerLiveActivityStartToken(token)
            }
            guard reply.isSuccess else {
                if reply.status == 429 && reply.errorCode == "binding_limit" {
                    holds.hold(token)
                    logger.warning("relay refused a \(kind.noun) registration: the token is bound to too many hosts; tried again in 10 minutes",
                                   ["token": Redact.token(token)])
                } else if reply.errorCode == "unsupported_platform" {
                    holds.hold(token)
                    logger.warning("relay does not take \(kind.noun)s (its PUSHGATE_RELAY_ANDROID_FCM_SERVICE_ACCOUNT_PATH is not set, or it is "
                                   + "too old); tried again in 10 minutes", ["token": Redact.token(token), "status": "\(reply.status)"])
                } else {
                    logger.warning("relay refused a \(kind.noun) registration; it is tried again before the next push",
                                   ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
                }
                return false
            }
            try await store.markRegistered(relayURL: client.baseURL, token: token, kind: kind.rawValue)
            return true
        } catch {
            logger.warning("\(kind.noun) registration did not reach the relay; check PUSHGATE_PUSH_RELAY_URL",
                           ["token": Redact.token(token), "error": "\(error)"])
            return false
        }
    }

    /// Removes this host's binding of `token` on the relay (best effort).
    func unregister(_ token: String) async {
        do {
            let reply: RelayReply = switch kind {
            case .alert: try await client.unregisterToken(token)
            case .androidAlert: try await client.unregisterToken(token, platform: AlertToken.Platform.android.rawValue)
            case .liveActivity: try await client.unregisterLiveActivityToken(token)
            case .liveActivityStart: try await client.unregisterLiveActivityStartToken(token)
            }
            if !reply.isSuccess {
                logger.warning("relay refused a \(kind.noun) unregistration",
                               ["token": Redact.token(token), "status": "\(reply.status)", "error": reply.errorCode ?? ""])
            }
        } catch {
            logger.warning("\(kind.noun) unregistration did not reach the relay",
                           ["token": Redact.token(token), "error": "\(error)"])
        }
    }

    /// Drops the cached registrations of `tokens`.
    func forget(_ tokens: [String]) async {
        for token in tokens {
            do {
                try await store.forgetRegistration(token: token, kind: kind.rawValue)
            } catch {
                logger.error("could not update the relay registration cache in host.sqlite", ["error": "\(error)"])
            }
        }
    }

    /// One send-type request through `send` (which logs its own failures and returns nil when
    /// the relay was not reached), then the repair of the bindings its answer says are lost:
    /// those tokens are registered again (unless held) and sent once more.
    func deliver(_ tokens: [String], _ send: @Sendable ([String]) async -> RelayReply?) async -> [String: TokenOutcome] {
        await Self.deliver(tokens, repair: repair, send)
    }

    /// ``deliver(_:_:)`` for tokens of several kinds in one request: `repair` registers again
    /// the lost ones, each by its own kind, and returns those registered.
    static func deliver(_ tokens: [String], repair: ([String]) async -> [String],
                        _ send: @Sendable ([String]) async -> RelayReply?) async -> [String: TokenOutcome] {
        let reply = await send(tokens)
        var outcomes = outcomes(tokens, reply)
        guard let reply, reply.isSuccess else { return outcomes }
        let unbound = Set(reply.results.filter { !$0.ok && $0.reason == RelayReply.TokenResult.notBound }.map(\.token))
        guard !unbound.isEmpty else { return outcomes }
        let repaired = await repair(tokens.filter { unbound.contains($0) })
        guard !repaired.isEmpty else { return outcomes }
        outcomes.merge(Self.outcomes(repaired, await send(repaired))) { _, retried in retried }
        return outcomes
    }

    /// Drops the cached registrations of `tokens`, which the relay no longer binds to this
    /// host, and registers again those not held; returns those registered.
    func repair(_ tokens: [String]) async -> [String] {
        guard !tokens.isEmpty else { return [] }
        await forget(tokens)
        let claimed = holds.claim(tokens)
        logger.info("relay no longer binds \(kind.noun)s to this host; registering them again",
                    ["tokens": "\(tokens.count)", "held": "\(tokens.count - claimed.count)"])
        let registered = await forEachConcurrently(claimed, limit: Self.concurrency) { token in
            await register(token) ? token : nil
        }
        return registered.compactMap { $0 }
    }

    /// Per token of a send-type request: the relay's row, or `failed` when the relay refused
    /// the request or did not answer (`reply` nil). A request the relay found malformed (400,
    /// 413) is not sent again; any other refusal or silence is (docs/host.md, "Outbox").
    private static func outcomes(_ tokens: [String], _ reply: RelayReply?) -> [String: TokenOutcome] {
        let whole: RetryAdvice = reply.map { $0.status == 400 || $0.status == 413 ? .never : .later } ?? .later
        var outcomes = Dictionary(tokens.map { ($0, TokenOutcome.failed(whole)) }, uniquingKeysWith: { first, _ in first })
        guard let reply, reply.isSuccess else { return outcomes }
        for row in reply.results where outcomes[row.token] != nil {
            outcomes[row.token] = row.ok ? .accepted : (row.drop ? .dropped : .failed(advice(row)))
        }
        return outcomes
    }

    /// A row's `retryable` and `retryAfter`; a relay that sends no `retryable` (OpenChamber's)
    /// is trusted to mean a passing failure unless its `reason` says `refused`.
    private static func advice(_ row: RelayReply.TokenResult) -> RetryAdvice {
        RetryAdvice(retryable: row.retryable ?? (row.reason != "refused"), afterSeconds: row.retryAfterSeconds)
    }
}
