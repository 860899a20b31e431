import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateStore
import Synchronization

/// The signed relay: validates, authenticates and de-duplicates host requests, keeps the
/// token bindings, and delivers through a ``DeliveryChannel`` (iOS) or an ``AndroidAlertLane``.
///
/// - Important: the order of checks and the routes are docs/relay.md's.
public final class RelayService: Sendable {
    let configuration: RelayConfiguration
    let store: any BindingStore
    let channel: any DeliveryChannel
    /// Where Android-bound tokens of a `send` go; `nil`: an `android` register answers 501.
    let android: (any AndroidAlertLane)?
    let clock: any WallClock
    let logger: Logger
    let guards: RelayGuards
    let retry: ProviderRetry
    public let metrics = RelayMetrics()
    /// The body cap of `send`; the other signed routes keep 16 KiB.
    static let maxSendBodyBytes = 64 * 1024
    /// What `/healthz` announces beyond OpenChamber's relay, so a host knows it may send it
    /// (docs/relay.md "Health"): the `interruptionLevel` field of `/v1/push`.
    static let extensions = [HapiPushRequest.interruptionLevelField]
    private let keys = PublicKeyCache()
    private let accepting = Atomic<Bool>(true)

    /// - Parameter replay: the replay set of ``RelayStorage`` (journal or shared), or `nil` for one
    ///   in memory only.
    init(configuration: RelayConfiguration, store: any BindingStore, channel: any DeliveryChannel,
         android: (any AndroidAlertLane)?, clock: any WallClock = SystemClock(),
         deadlineClock: any MonotonicClock = SystemMonotonicClock(), logger: Logger, replay: ReplaySet? = nil) {
        self.configuration = configuration
        self.store = store
        self.channel = channel
        self.android = android
        self.clock = clock
        self.logger = logger
        guards = RelayGuards(configuration: configuration, replay: replay ?? ReplaySet(
            ceiling: configuration.maxReplayKeys, logger: logger, nowMs: clock.nowMilliseconds))
        retry = ProviderRetry(requestDeadlineMs: configuration.requestDeadlineMs, limiter: guards.inFlightLimiter, metrics: metrics,
                              clock: deadlineClock)
    }

    /// The check made before the body is read: the per-IP rate limit.
    public func admit(route: RelayRoute, peer: String, headers: HTTPHeaders) -> RelayResponse? {
        let ip = client(peer: peer, headers: headers)
        guard guards.allowsClient(ip, route: route, nowMs: clock.nowMilliseconds) else {
            return answered(route, .error(.rateLimited))
        }
        return nil
    }

    /// The client a request is counted against: its IP, an IPv6 one by its prefix (docs/relay.md
    /// "Client address"); with too few forwarded addresses, the socket peer.
    public func client(peer: String, headers: HTTPHeaders) -> String {
        configuration.clientAddresses.client(peer: peer, headers: headers)
    }

    /// Answers one admitted request whose body has been read in full; `client` is its key from
    /// ``client(peer:headers:)``.
    public func handle(route: RelayRoute, body: [UInt8], client: String = "") async -> RelayResponse {
        let response: RelayResponse
        do {
            switch route {
            case .healthz: response = .json(200, ["status": "ok", "extensions": .array(Self.extensions.map(JSONValue.string))])
            case .readyz: response = isReady ? .json(200, ["status": "ready"]) : .json(503, ["status": "not_ready"])
            case .registerToken, .unregisterToken, .registerLiveActivityToken, .unregisterLiveActivityToken:
                response = try await register(route: route, body: body, client: client)
            case .send: response = try await send(body: body, client: client)
            case .liveActivity: response = try await liveActivity(body: body, client: client)
            case .background: response = try await background(body: body, client: client)
            }
        } catch {
            response = .error(error)
        }
        return answered(route, response)
    }

    /// Ready while accepting, with the store open and provider credentials loaded.
    public var isReady: Bool { accepting.load(ordering: .relaxed) && channel.isReady }

    /// Marks the relay as shutting down (`/readyz` answers 503).
    public func stopAccepting() { accepting.store(false, ordering: .relaxed) }

    /// Drops expired limiter and replay keys and sweeps a step of stale bindings; the scheduler
    /// calls this periodically.
    public func purgeExpired() async {
        let now = clock.nowMilliseconds
        do {
            try await guards.purge(nowMs: now)
        } catch {
            logger.warning("could not purge expired replay keys; check the database", ["error": "\(error)"])
        }
        do {
            let removed = try await store.sweep(nowMs: now)
            if removed > 0 { logger.info("bindings not refreshed within BINDING_TTL_DAYS removed", ["count": "\(removed)"]) }
        } catch {
            logger.warning("could not sweep stale bindings; check the database", ["error": "\(error)"])
        }
    }

    // MARK: - Routes

    private func register(route: RelayRoute, body: [UInt8], client: String) async throws(RelayError) -> RelayResponse {
        let liveActivity = route == .registerLiveActivityToken || route == .unregisterLiveActivityToken
        // An Android binding made while the relay had its account can always be removed.
        let request = try RegisterRequest(.relayBody(body), liveActivity: liveActivity,
                                          servesAndroid: android != nil || route == .unregisterToken, keys: keys)
        let now = clock.nowMilliseconds
        let serverId = try request.proof.verify(message: request.signedMessage(route: route), nowMs: now,
                                                skewMs: configuration.timestampSkewMs)
        let replayKey = request.proof.replayKey(serverId: serverId, skewMs: configuration.timestampSkewMs)
        switch try await recordReplay(replayKey, client: client, route: route, holdingCopies: true) {
        case .replay:
            // A replay changes nothing. A copy of a request still at work answers only once the
            // original has, and as it did (docs/relay.md "Replay set").
            if let failure = await guards.replay.outcomeOfOriginal(replayKey.digest) { throw failure }
            return .ok
        case .refused: throw .rateLimited
        case .fresh: break
        }
        do {
            try await applyRegister(request, route: route, serverId: serverId, digest: replayKey.digest, client: client, nowMs: now)
        } catch {
            guards.replay.settle(replayKey.digest, failure: error)
            throw error
        }
        guards.replay.settle(replayKey.digest, failure: nil)
        return .ok
    }

    /// The work of a register or unregister whose key was recorded fresh; when it is refused or
    /// fails, the key is forgotten, so the same signed request may be retried.
    private func applyRegister(_ request: RegisterRequest, route: RelayRoute, serverId: String, digest: ReplayDigest,
                               client: String, nowMs: Int64) async throws(RelayError) {
        let kind = request.kind
        do {
            if route == .registerToken || route == .registerLiveActivityToken {
                try await bind(request.token, kind: kind, serverId: serverId, client: client, nowMs: nowMs)
            } else if try await store.unregister(token: request.token, kind: kind, serverId: serverId) == .boundToOthers {
                throw RelayError.invalidSignature
            }
        } catch {
            await guards.replay.forget(digest)
            if let error = error as? RelayError { throw error }
            logger.error("binding store failed; check the database file and disk", ["route": route.name, "error": "\(error)"])
            throw .storeFailure(error)
        }
    }

    /// Adds or refreshes a binding within the caps of docs/relay.md "Bindings"; a new token
    /// spends one of the client's new tokens this hour.
    private func bind(_ token: String, kind: BindingKind, serverId: String, client: String, nowMs: Int64) async throws {
        let mayAddToken = guards.newTokensByIP.take(client, nowMs: nowMs)
        let outcome = try await store.register(token: token, kind: kind, serverId: serverId, nowMs: nowMs, mayAddToken: mayAddToken)
        if mayAddToken, outcome != .created { guards.newTokensByIP.giveBack(client) }
        switch outcome {
        case .created, .added, .refreshed: return
        case .tokenLimit: throw RelayError.tokenLimit
        case .hostTokenLimit: throw RelayError.hostTokenLimit
        case .bindingLimit: throw RelayError.bindingLimit
        case .newTokenRefused: throw RelayError.rateLimited
        }
    }

    private func send(body: [UInt8], client: String) async throws(RelayError) -> RelayResponse {
        let startedAtMs = retry.clock.nowMilliseconds
        let request = try SendRequest(.relayBody(body), keys: keys)
        // Such a send signs the bytes of another route's message (docs/security.md, M3).
        guard !request.signsAnotherRoutesMessage else { throw .invalidRequest }
        guard let payload = APNsPayload.alert(title: request.title, body: request.body, badge: request.badge,
                                              threadId: request.collapseId, data: request.data, attention: request.attention)
        else { throw .invalidRequest }
        let serverId = try await authorize(request.proof, message: request.signedMessage, route: .send, client: client)
        let ttlSeconds = configuration.apnsTTLSeconds
        let expiration = APNsNotification.expiration(ttlSeconds: ttlSeconds, nowMs: clock.nowMilliseconds)
        let (bundleId, channel, android, androidSettings) = (configuration.bundleId, channel, android, configuration.android)
        let replacesDuplicates = request.collapseId != nil
        // Each token goes where this host's binding of it says: iOS to APNs, Android to FCM.
        let rows = try await deliver(request.tokens, kinds: [.alert, .android], serverId: serverId,
                                     startedAtMs: startedAtMs) { token, kind throws -> ProviderPush in
            guard kind == .android else {
                let notification = try APNsNotification.alert(deviceToken: token, bundleId: bundleId, payload: payload,
                                                              collapseId: request.collapseId, expiration: expiration)
                return ProviderPush(attemptTimeoutMs: channel.requestTimeoutMilliseconds, replacesDuplicates: replacesDuplicates) {
                    await channel.deliver(notification, environment: request.environment)
                }
            }
            let message = FCMMessage.alert(token: token, title: request.title, body: request.body, data: request.data,
                                           collapseId: request.collapseId, badge: request.badge,
                                           channelId: androidSettings?.channelId ?? AndroidAlertSettings.defaultChannelId,
                                           packageName: androidSettings?.fcm.packageName, ttlSeconds: ttlSeconds,
                                           level: request.attention.level,
                                           timeSensitiveChannelId: androidSettings?.timeSensitiveChannelId)
            return Self.androidPush(message, lane: android, replacesDuplicates: replacesDuplicates)
        }
        return results(rows)
    }

    /// `POST /v1/push/background` (**extension**, docs/relay.md "Background"): checked and guarded
    /// as `send`; iOS tokens get a background push whose `aps` holds only `content-available`,
    /// Android tokens a data message, both naming the collapse ids to remove.
    private func background(body: [UInt8], client: String) async throws(RelayError) -> RelayResponse {
        let startedAtMs = retry.clock.nowMilliseconds
        let request = try BackgroundRequest(.relayBody(body), keys: keys)
        guard let payload = APNsPayload.dismissal(collapseIds: request.collapseIds) else { throw .invalidRequest }
        let serverId = try await authorize(request.proof, message: request.signedMessage, route: .background, client: client)
        // A dismissal is worth delivering as long as the alerts it removes are kept for the phone.
        let ttlSeconds = configuration.apnsTTLSeconds
        let expiration = APNsNotification.expiration(ttlSeconds: ttlSeconds, nowMs: clock.nowMilliseconds)
        let (bundleId, channel, android, packageName) = (configuration.bundleId, channel, android, configuration.android?.fcm.packageName)
        // Removing notifications twice removes nothing more: a try that may have arrived can be sent again.
        let rows = try await deliver(request.tokens, kinds: [.alert, .android], serverId: serverId,
                                     startedAtMs: startedAtMs) { token, kind throws -> ProviderPush in
            guard kind == .android else {
                let notification = try APNsNotification.background(deviceToken: token, bundleId: bundleId, payload: payload,
                                                                   expiration: expiration)
                return ProviderPush(attemptTimeoutMs: channel.requestTimeoutMilliseconds, replacesDuplicates: true) {
                    await channel.deliver(notification, environment: request.environment)
                }
            }
            let message = FCMMessage.dismissal(token: token, collapseIds: request.collapseIds, packageName: packageName,
                                               ttlSeconds: ttlSeconds)
            return Self.androidPush(message, lane: android, replacesDuplicates: true)
        }
        return results(rows)
    }

    /// An Android token's push through `lane`; without one (the token was bound while the relay had
    /// an Android account, and is sent to after it was removed) the row is refused.
    private static func androidPush(_ message: FCMMessage, lane: (any AndroidAlertLane)?, replacesDuplicates: Bool) -> ProviderPush {
        guard let lane else {
            return ProviderPush(attemptTimeoutMs: 0, replacesDuplicates: false) {
                .transient(reason: TokenResultReason.androidUnconfigured, failure: .rejected)
            }
        }
        return ProviderPush(attemptTimeoutMs: lane.requestTimeoutMilliseconds, replacesDuplicates: replacesDuplicates) {
            await lane.deliver(message)
        }
    }

    /// `POST /v1/push/live-activity`: an update or end to activity tokens, or a start
    /// (**extension**) to a push-to-start token, which spends one of the token's starts this
    /// hour once this host is found to hold it (docs/relay.md "Live Activity").
    private func liveActivity(body: [UInt8], client: String) async throws(RelayError) -> RelayResponse {
        let startedAtMs = retry.clock.nowMilliseconds
        let request = try LiveActivityRequest(.relayBody(body), keys: keys)
        let push = request.push
        let nowMs = clock.nowMilliseconds
        let nowSeconds = nowMs / 1_000
        guard let payload = APNsPayload.liveActivity(timestamp: nowSeconds, event: push.event.rawValue,
                                                     contentState: push.contentState.json, dismissalDate: push.dismissalDate,
                                                     staleDate: push.staleDate, start: request.start)
        else { throw .invalidRequest }
        let serverId = try await authorize(request.proof, message: request.signedMessage, route: .liveActivity, client: client)
        let kind: BindingKind = push.event == .start ? .liveActivityStart : .liveActivity
        let bound = try await bindings(push.tokens, kinds: [kind], serverId: serverId)
        if push.event == .start, let token = bound.keys.first,
           let waitMs = guards.startWaitMs(token: token, nowMs: clock.nowMilliseconds) {
            logger.info("push-to-start token had its starts this hour; start refused", ["token": Redact.token(token)])
            throw .startLimited(retryAfterSeconds: Int((waitMs + 999) / 1_000))
        }
        let (bundleId, channel) = (configuration.bundleId, channel)
        let priority = request.priority
        let expiration = APNsNotification.expiration(of: push, ttlSeconds: configuration.apnsTTLSeconds, nowMs: nowMs)
        let rows = await deliver(push.tokens, bound: bound, serverId: serverId, startedAtMs: startedAtMs) { token, _ in
            let notification = try APNsNotification.liveActivity(deviceToken: token, bundleId: bundleId, payload: payload,
                                                                 priority: priority, expiration: expiration)
            return ProviderPush(attemptTimeoutMs: channel.requestTimeoutMilliseconds, replacesDuplicates: false) {
                await channel.deliver(notification, environment: request.environment)
            }
        }
        if push.event == .end {
            for row in rows where row.ok {
                // After an accepted end the activity is over; its binding goes (docs/relay.md "Live Activity").
                _ = try? await store.removeBinding(token: row.token, kind: .liveActivity, serverId: serverId)
            }
        }
        return results(rows)
    }

    // MARK: - Shared steps

    /// Timestamp, signature, replay and the per-`serverId` limit of a send-type request: a
    /// replay is refused before it can spend the host's budget, and a request the limit refuses
    /// is not recorded (docs/relay.md "Replay set").
    private func authorize(_ proof: SignedProof, message: String, route: RelayRoute,
                           client: String) async throws(RelayError) -> String {
        let now = clock.nowMilliseconds
        let serverId = try proof.verify(message: message, nowMs: now, skewMs: configuration.timestampSkewMs)
        let key = proof.replayKey(serverId: serverId, skewMs: configuration.timestampSkewMs)
        let claimed: Bool
        do {
            claimed = try await guards.replay.claim(key.digest, nowMs: now)
        } catch {
            logger.error("replay set failed; check the database", ["route": route.name, "error": "\(error)"])
            throw .storeFailure(error)
        }
        guard claimed else { throw .replay }
        guard guards.sendByServer.allow(serverId, nowMs: now) else {
            guards.replay.release(key.digest)
            throw .rateLimited
        }
        switch try await recordReplay(key, client: client, route: route) {
        case .replay: throw .replay
        case .refused: throw .rateLimited
        case .fresh: return serverId
        }
    }

    /// Records a replay key. A replay set that cannot answer (the database is down) refuses the
    /// request with 503 (500 for any other failure) rather than let a possible replay through.
    private func recordReplay(_ key: (digest: ReplayDigest, expiresAtMs: Int64), client: String, route: RelayRoute,
                              holdingCopies: Bool = false) async throws(RelayError) -> ReplayKeyTable.Outcome {
        do {
            return try await guards.replay.record(key.digest, expiresAtMs: key.expiresAtMs, client: client,
                                                  nowMs: clock.nowMilliseconds, holdingCopies: holdingCopies)
        } catch {
            logger.error("replay set failed; check the database", ["route": route.name, "error": "\(error)"])
            throw .storeFailure(error)
        }
    }

    struct ResultRow: Sendable {
        var token: String
        var ok: Bool
        var drop = false
        /// Why a row is not ok; `nil` when it is.
        var reason: TokenResultReason?
        /// The provider's `Retry-After` of a throttled push.
        var retryAfterSeconds: Int?

        static func failed(_ token: String, _ reason: TokenResultReason, retryAfterSeconds: Int? = nil) -> ResultRow {
            ResultRow(token: token, ok: false, drop: reason == .dead, reason: reason, retryAfterSeconds: retryAfterSeconds)
        }
    }

    /// One push ready to go: how to try it, how long a try may take, and whether a copy of it
    /// replaces an earlier one on the device (a collapse id, an FCM tag), so a retry is safe.
    struct ProviderPush: Sendable {
        let attemptTimeoutMs: Int64
        let replacesDuplicates: Bool
        let attempt: @Sendable () async -> APNsOutcome
    }

    /// Delivers to every distinct token bound as one of `kinds` at once (bounded by the
    /// in-flight limiter), rows in first-seen order; `push` makes a token's push for its kind.
    private func deliver(_ tokens: [String], kinds: [BindingKind], serverId: String, startedAtMs: Int64,
                         push: @escaping @Sendable (String, BindingKind) throws -> ProviderPush) async throws(RelayError) -> [ResultRow] {
        let bound = try await bindings(tokens, kinds: kinds, serverId: serverId)
        return await deliver(tokens, bound: bound, serverId: serverId, startedAtMs: startedAtMs, push: push)
    }

    /// The kind each of `tokens` is bound to this host with, among `kinds`.
    private func bindings(_ tokens: [String], kinds: [BindingKind], serverId: String) async throws(RelayError) -> [String: BindingKind] {
        do {
            return try await store.boundTokens(DeviceToken.distinct(tokens), kinds: kinds, serverId: serverId, nowMs: clock.nowMilliseconds)
        } catch {
            logger.error("binding store lookup failed; check the database file", ["error": "\(error)"])
            throw .storeFailure(error)
        }
    }

    /// Delivers to every distinct token of `tokens` found in `bound`; the others get `not_bound`.
    private func deliver(_ tokens: [String], bound: [String: BindingKind], serverId: String, startedAtMs: Int64,
                         push: @escaping @Sendable (String, BindingKind) throws -> ProviderPush) async -> [ResultRow] {
        let distinct = DeviceToken.distinct(tokens)
        return await withTaskGroup(of: (Int, ResultRow).self) { group in
            for (index, token) in distinct.enumerated() {
                guard let kind = bound[token] else {
                    metrics.provider(result: "unbound", reason: "not_bound")
                    continue
                }
                group.addTask {
                    guard let built = try? push(token, kind) else {
                        // Every field was validated already; a refusal here is a relay bug or a
                        // binding whose platform the relay no longer serves, not the host's fault.
                        self.logger.error("could not build a provider request", ["token": Redact.token(token), "kind": kind.rawValue])
                        return (index, .failed(token, .refused))
                    }
                    return (index, await self.deliverOne(built, token: token, kind: kind, serverId: serverId, startedAtMs: startedAtMs))
                }
            }
            var rows = distinct.map { ResultRow.failed($0, .notBound) }
            for await (index, row) in group { rows[index] = row }
            return rows
        }
    }

    /// One push, retried within the request's deadline as docs/relay.md "Retries" says.
    private func deliverOne(_ push: ProviderPush, token: String, kind: BindingKind, serverId: String,
                            startedAtMs: Int64) async -> ResultRow {
        let outcome = await retry.run(startedAtMs: startedAtMs, attemptTimeoutMs: push.attemptTimeoutMs,
                                      replacesDuplicates: push.replacesDuplicates, attempt: push.attempt)
        guard let outcome else {
            metrics.provider(result: "refused", reason: "in_flight_full")
            return .failed(token, .transient)
        }
        switch outcome {
        case .delivered:
            metrics.provider(result: "delivered", reason: "ok")
            return ResultRow(token: token, ok: true)
        case .dead(let reason):
            metrics.provider(result: "dead", reason: reason)
            await forgetDead(token, kind: kind, serverId: serverId, reason: reason)
            return .failed(token, .dead)
        case .transient(let reason, let failure):
            let verdict = TokenResultReason.of(providerReason: reason)
            metrics.provider(result: verdict == .refused ? "refused" : "transient", reason: reason)
            logger.info("provider did not accept a push; binding kept", ["token": Redact.token(token), "reason": reason])
            return .failed(token, verdict, retryAfterSeconds: failure.retryAfterSeconds)
        }
    }

    /// A gone token (APNs 410 `Unregistered`, FCM `UNREGISTERED`) loses every binding of its
    /// kind; `BadDeviceToken`, `DeviceTokenNotForTopic` and FCM's `INVALID_ARGUMENT` naming the
    /// token condemn it only for the sending host, whose unsigned `env` or topic may be what is
    /// wrong, or whose binding's platform (docs/security.md, M4).
    private func forgetDead(_ token: String, kind: BindingKind, serverId: String, reason: String) async {
        let senderOnly = DeadTokenReason.sendingHostOnly.contains(reason)
        logger.info(senderOnly ? "provider refuses the token for this host; its binding deleted"
                               : "provider reports a dead token; bindings deleted",
                    ["token": Redact.token(token), "reason": reason])
        do {
            if senderOnly {
                try await store.removeBinding(token: token, kind: kind, serverId: serverId)
            } else {
                try await store.deleteToken(token, kind: kind)
            }
        } catch {
            logger.error("could not delete a dead token's bindings", ["token": Redact.token(token), "error": "\(error)"])
        }
    }

    private func results(_ rows: [ResultRow]) -> RelayResponse {
        .json(200, ["results": .array(rows.map { row in
            var object = JSONObject([("token", .string(row.token)), ("ok", .bool(row.ok))])
            if row.drop { object["drop"] = true }
            if let reason = row.reason {
                object["reason"] = .string(reason.rawValue)
                object["retryable"] = .bool(reason.isRetryable)
            }
            if let seconds = row.retryAfterSeconds { object["retryAfter"] = .integer(Int64(seconds)) }
            return .object(object)
        })])
    }

    /// The relay's metrics in Prometheus text, with the gauges read now (served by ``MetricsListener``).
    public func metricsText() async -> String {
        let bindings = try? await store.count()
        let replayEntries = try? await guards.replay.keyCount()
        return metrics.render(inFlight: guards.inFlightLimiter.inFlight, inFlightLimit: guards.inFlightLimiter.limit, replayEntries: replayEntries,
                              replayRefusals: guards.replay.refusedAtCeiling, bindings: bindings)
    }

    private func answered(_ route: RelayRoute, _ response: RelayResponse) -> RelayResponse {
        metrics.request(route: route.name, status: response.status, outcome: response.errorCode ?? "ok")
        return response
    }
}
