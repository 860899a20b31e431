import Foundation
import PushgateCore
import PushgateHTTP
import PushgateStore
import Synchronization

/// The gateway's request handling: the per-IP buckets and bearer form before the body, then
/// the handshake, device and send routes.
///
/// - Important: protocol/gateway.md §1.1 order of checks — unauthenticated: per-IP bucket → body
///   size → JSON and schema → work; authenticated: per-IP bucket → bearer → body size → JSON
///   and schema → work. The bearer's form is checked before the body is read, its session
///   after (a stored-session lookup may not block a server thread). The body cap itself is the
///   HTTP server's, per route (``RelayGateway/bodyLimits``), while the body streams in.
final class GatewayService: Sendable {
    /// Largest request body, in bytes.
    static let maxBodyBytes = 16_384
    /// Session lifetime: 24 h, no sliding renewal (§2.8).
    static let sessionLifetimeMs: Int64 = 86_400_000

    let configuration: GatewayConfiguration
    let store: any GatewayStore
    let clock: any WallClock
    let coalescer: GatewayCoalescer
    let counters: GatewayCounters
    private let metrics: RelayMetrics
    private let logger: Logger
    /// The per-IP buckets' key when a trusted proxy's header names too few addresses (§9).
    static let unknownClient = "unknown"
    /// §9: challenge and session share one bucket per client IP (30, refilled 30 per 60 s).
    private let handshakeBucket: TokenBucketLimiter
    /// §9 (recommended): a separate 240-per-minute bucket per IP in front of the bearer lookup.
    private let authenticatedBucket: TokenBucketLimiter
    /// New hosts per client IP (`NEW_HOSTS_PER_IP_PER_HOUR`), spent only when a session adds a host.
    private let newHostBucket: TokenBucketLimiter
    private let clients: ClientAddressPolicy
    private let relayReady: @Sendable () -> Bool
    let readiness: GatewayReadiness

    /// `clients` and `maxKeys` are the relay's: one client address rule for every route, and
    /// the keys each bucket set tracks (10 000 unless `RATE_LIMIT_MAX_KEYS` says otherwise).
    init(configuration: GatewayConfiguration, clients: ClientAddressPolicy, maxKeys: Int?, store: any GatewayStore,
         clock: any WallClock, coalescer: GatewayCoalescer, counters: GatewayCounters, metrics: RelayMetrics, logger: Logger,
         relayReady: @escaping @Sendable () -> Bool) {
        handshakeBucket = TokenBucketLimiter(capacity: 30, refillPerMinute: 30, maxKeys: maxKeys ?? 10_000)
        authenticatedBucket = TokenBucketLimiter(capacity: 240, refillPerMinute: 240, maxKeys: maxKeys ?? 10_000)
        self.clients = clients
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.coalescer = coalescer
        self.counters = counters
        self.metrics = metrics
        self.logger = logger
        self.relayReady = relayReady
        newHostBucket = TokenBucketLimiter(capacity: configuration.newHostsPerIPPerHour, refill: configuration.newHostsPerIPPerHour,
                                           everyMs: 3_600_000, maxKeys: maxKeys ?? TokenBucketLimiter.defaultMaxKeys)
        readiness = GatewayReadiness(logger: logger)
    }

    // MARK: - Before the body

    /// The checks made before the body is read; a response refuses the request at once.
    func admit(route: GatewayRoute, peer: String, headers: HTTPHeaders) -> RelayResponse? {
        let refusal = refusalBeforeBody(route: route, peer: peer, headers: headers)
        if let refusal { return answered(route, .error(refusal)) }
        return nil
    }

    private func refusalBeforeBody(route: GatewayRoute, peer: String, headers: HTTPHeaders) -> RelayError? {
        guard route.isHandshake || route.isAuthenticated else { return nil }
        let ip = clientIP(peer: peer, headers: headers)
        let bucket = route.isHandshake ? handshakeBucket : authenticatedBucket
        guard bucket.take(ip, nowMs: clock.nowMilliseconds) else {
            counters.count(.ipRateLimited)
            return .rateLimited
        }
        if route.isAuthenticated, GatewayBearer.token(from: headers["authorization"]) == nil { return .invalidToken }
        return nil
    }

    // MARK: - Routes

    /// Answers one admitted request whose body has been read in full.
    func handle(route: GatewayRoute, request: HTTPRequest) async -> RelayResponse {
        let response: RelayResponse
        do {
            switch route {
            case .health: response = .json(200, ["ok": true, "pushProtocol": 1])
            case .ready: response = readyResponse()
            case .challenge: response = try await challenge(request.body)
            case .session: response = try await session(request.body, client: clientIP(peer: request.peerAddress, headers: request.headers))
            case .registerDevice, .deleteDevice, .listDevices, .send:
                let host = try await authenticate(request.headers)
                switch route {
                case .registerDevice: response = try await registerDevice(request.body, host: host)
                case .deleteDevice: response = try await deleteDevice(request.parameters["registrationId"] ?? "", host: host)
                case .listDevices: response = try await listDevices(host: host)
                default: response = try await send(request.body, host: host)
                }
            }
        } catch {
            response = .error(error)
        }
        return answered(route, response)
    }

    /// From state already at hand: the store's last probe (``GatewayReadiness``) and the relay's flag.
    private func readyResponse() -> RelayResponse {
        readiness.isStoreReachable && relayReady() ? .json(200, ["ok": true]) : .error(.dependencyUnavailable)
    }

    private func challenge(_ body: [UInt8]) async throws(RelayError) -> RelayResponse {
        let request = try GatewayChallengeRequest(body: body)
        let issue: ChallengeIssue
        do {
            issue = try ChallengeIssue.fresh(hostPublicKey: request.hostPublicKey, gatewayOrigin: configuration.publicURL,
                                             nowMs: clock.nowMilliseconds)
        } catch {
            // libsodium refuses a low-order key: it cannot receive a box.
            throw .invalidRequest
        }
        try await storing {
            try await self.store.insertChallenge(GatewayChallengeRecord(
                challengeId: issue.challenge.challengeId, hostFingerprint: issue.hostFingerprint,
                hostPublicKeyB64: request.hostPublicKeyB64, secretHash: issue.secretHash, transcriptB64: nil,
                expiresAt: issue.challenge.expiresAt))
        }
        return .json(200, issue.challenge.json)
    }

    /// `client` is the redeeming IP, whose budget of new hosts a host not stored yet spends.
    private func session(_ body: [UInt8], client: String) async throws(RelayError) -> RelayResponse {
        let request = try GatewaySessionRequest(body: body)
        let now = clock.nowMilliseconds
        let token = HostProof.newSessionToken()
        let expiresAt = now + Self.sessionLifetimeMs
        let proofHash = request.proofHash
        let bucket = newHostBucket
        // The rule runs inside the store's transaction, which may run again (a group commit
        // retried alone): the client's budget is spent once, and given back below unless a new
        // host came of it.
        let spent = Mutex(false)
        let newHost = GatewayNewHostRule(maxHosts: configuration.maxHosts) {
            spent.withLock { alreadySpent in
                if !alreadySpent { alreadySpent = bucket.take(client, nowMs: now) }
                return alreadySpent
            }
        }
        let outcome: ChallengeRedemption
        do {
            outcome = try await storing {
                try await self.store.redeemChallenge(id: request.challengeId, proofHash: proofHash, nowMs: now,
                                                     sessionTokenHash: HostProof.storedHash(ofSessionToken: token),
                                                     sessionExpiresAt: expiresAt, newHost: newHost)
            }
        } catch {
            if spent.withLock({ $0 }) { bucket.giveBack(client) }
            throw error
        }
        if case .redeemed = outcome {} else if spent.withLock({ $0 }) { bucket.giveBack(client) }
        switch outcome {
        case .unknownChallenge:
            throw .invalidChallenge
        case .refused:
            throw .invalidProof
        case .hostLimit:
            counters.count(.hostLimitRefused)
            throw .hostLimit
        case .newHostRateLimited:
            counters.count(.newHostRateLimited)
            throw .rateLimited
        case .redeemed(let fingerprint):
            return .json(200, .object(JSONObject([
                ("sessionToken", .string(token)), ("expiresAt", .integer(expiresAt)), ("hostFingerprint", .string(fingerprint)),
            ])))
        }
    }

    /// The fingerprint of the host whose live session the bearer token names.
    private func authenticate(_ headers: HTTPHeaders) async throws(RelayError) -> String {
        guard let token = GatewayBearer.token(from: headers["authorization"]) else { throw .invalidToken }
        let hash = HostProof.storedHash(ofSessionToken: token)
        guard let session = try await storing({ try await self.store.session(tokenHash: hash) }) else { throw .invalidToken }
        guard clock.nowMilliseconds <= session.expiresAt else { throw .sessionExpired }
        return session.hostFingerprint
    }

    private func registerDevice(_ body: [UInt8], host: String) async throws(RelayError) -> RelayResponse {
        let request = try GatewayDeviceRequest(body: body)
        let registration = GatewayDeviceRegistration(hostFingerprint: host, deviceId: request.deviceId, platform: request.platform,
                                                     token: request.token, apnsEnvironment: request.apnsEnvironment,
                                                     filterJSON: request.filterJSON)
        let now = clock.nowMilliseconds
        let outcome = try await storing {
            try await self.store.registerDevice(registration, newRegistrationId: RandomUUID.lowercase(), nowMs: now)
        }
        switch outcome {
        case .registered(let id): return .json(200, .object(JSONObject([("registrationId", .string(id))])))
        case .tooManyDevices: throw .tooManyDevices
        }
    }

    private func deleteDevice(_ registrationId: String, host: String) async throws(RelayError) -> RelayResponse {
        guard try await storing({ try await self.store.deleteDevice(registrationId: registrationId, hostFingerprint: host) }) else {
            throw .notFound
        }
        return RelayResponse(status: 204, body: [], contentType: "application/json")
    }

    private func listDevices(host: String) async throws(RelayError) -> RelayResponse {
        let devices = try await storing { try await self.store.devices(hostFingerprint: host) }
        return .json(200, ["devices": .array(devices.map { device in
            .object(JSONObject([
                ("registrationId", .string(device.registrationId)), ("deviceId", .string(device.deviceId)),
                ("platform", .string(device.platform)), ("dead", .bool(device.dead)),
            ]))
        })])
    }

    private func send(_ body: [UInt8], host: String) async throws(RelayError) -> RelayResponse {
        let request = try GatewaySendRequest(body: body)
        let ids = request.distinctRegistrationIds
        let now = clock.nowMilliseconds
        let notification = request.notification
        // The end of a window this opens; a restart takes each registration's earliest due time
        // (its open window's first row), so a row that joined that window later does not delay it.
        let dueAt = now + configuration.coalesceMs
        let admissions = try await storing {
            try await self.store.admitSends(hostFingerprint: host, registrationIds: ids, notification: notification, nowMs: now,
                                            dueAt: dueAt)
        }
        var results: [JSONValue] = []
        for (id, admission) in zip(ids, admissions) {
            let status: String
            switch admission {
            case .notOwned:
                status = "error"
                counters.count(.sendError)
            case .dead:
                status = "dead"
                counters.count(.sendDead)
            case .rateLimited:
                status = "rate_limited"
                counters.count(.sendRateLimited)
            case .admitted(let sendId):
                coalescer.add(GatewayQueuedNotification(sendId: sendId, acceptedAt: now, notification: notification),
                              registrationId: id, hostFingerprint: host)
                status = "queued"
                counters.count(.sendQueued)
            }
            results.append(.object(JSONObject([("registrationId", .string(id)), ("status", .string(status))])))
        }
        return .json(200, ["results": .array(results)])
    }

    // MARK: - Shared steps

    /// The client a per-IP bucket is keyed by: the relay's rule, with the gateway's own bucket
    /// for a proxy header that names too few addresses.
    private func clientIP(peer: String, headers: HTTPHeaders) -> String {
        clients.client(peer: peer, headers: headers, tooFewForwarded: Self.unknownClient)
    }

    /// Runs a store call; a store failure is logged by type name and answered 503
    /// `dependency_unavailable` when the database did not answer in time, else 500.
    private func storing<T: Sendable>(_ call: @Sendable () async throws -> T) async throws(RelayError) -> T {
        do {
            return try await call()
        } catch {
            logger.error("gateway store call failed; check the database file and disk", ["error": "\(type(of: error))"])
            throw .storeFailure(error)
        }
    }

    /// Counts an answer in the relay's request metrics and in the §10 counters: issued or
    /// rejected for the handshake and registration, deleted, and `request_error` for every other
    /// refusal but a 429 (counted as `ip_rate_limited` where it happens).
    private func answered(_ route: GatewayRoute, _ response: RelayResponse) -> RelayResponse {
        metrics.request(route: route.metricName, status: response.status, outcome: response.errorCode ?? "ok")
        let event: GatewayCounters.Event? = switch (route, response.status) {
        case (.challenge, 200): .challengeIssued
        case (.challenge, 400): .challengeRejected
        case (.session, 200): .sessionIssued
        case (.session, 400), (.session, 401): .sessionRejected
        case (.registerDevice, 200): .deviceRegistered
        case (.registerDevice, 400), (.registerDevice, 409): .deviceRejected
        case (.deleteDevice, 204): .deviceDeleted
        case (_, 429), (_, ..<400): nil  // counted as ip_rate_limited where refused
        case (.session, 503) where response.errorCode == RelayError.hostLimit.code: nil  // counted where refused
        default: .requestError
        }
        if let event { counters.count(event) }
        return response
    }
}

/// The session token of an `Authorization` header.
///
/// - Important: protocol/gateway.md §2.8 — the scheme word `Bearer` in any case, one space, then
///   the token (trimmed); missing or empty → `invalid_token`.
enum GatewayBearer {
    /// Tokens are 43 characters; anything far longer is not worth hashing.
    static let maxLength = 512

    static func token(from header: String?) -> String? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        guard header[..<space].lowercased() == "bearer" else { return nil }
        let token = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= maxLength else { return nil }
        return token
    }
}
