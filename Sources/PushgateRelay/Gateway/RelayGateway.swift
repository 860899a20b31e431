import PushgateCore
import PushgateHTTP
import PushgateStore

/// The Orca-compatible gateway inside a running relay: its store, service, coalescer and the
/// scheduler jobs that prune its tables, take over outbox rows and write the counter line.
///
/// - Important: protocol/gateway.md §5.3 and §8 (prune intervals: challenges 60 s, sessions 10 min,
///   send log 30 min; Pushgate adds hosts idle past `HOST_TTL_DAYS` every 10 min, docs/gateway.md
///   "Growth"), §6 (on shutdown every collecting window is flushed before the provider
///   connections and the store close), §10 (a counter line a minute). Pushgate's outbox
///   (docs/gateway.md "Coalescing and delivery"): windows rebuilt from it at start-up, and every
///   30 s the rows of relays that ended on a shared PostgreSQL database taken over.
public final class RelayGateway: Sendable {
    public let configuration: GatewayConfiguration
    let service: GatewayService
    private let store: any GatewayStore
    private let android: (any GatewayAndroidLane)?
    private let maintenance = DeliveryTracker()
    private let jobs: [any ScheduledJob]
    private let attempts: GatewayAttemptCounter
    private let logger: Logger

    /// How often a relay on a shared database looks for outbox rows of relays that ended.
    static let adoptionIntervalMs: Int64 = 30_000

    /// Opens the gateway's tables in the relay database and schedules its jobs; `nil` when the
    /// configuration leaves the gateway off. The Android lane sends through the client of
    /// `fcmClients` for the relay's service account, the one hapi's Android lane uses too.
    static func start(configuration: RelayConfiguration, fcmClients: RelayFCMClients,
                      channel: any DeliveryChannel, scheduler: any Scheduler,
                      relay: RelayService, logger: Logger) async throws -> RelayGateway? {
        guard let settings = configuration.gateway else { return nil }
        let logger = logger.named("gateway")
        let android = try settings.androidLane(configuration, fcmClients: fcmClients, channel: channel, clock: scheduler.clock,
                                               logger: logger)
        // Beside the bindings: with PostgreSQL, every relay on the database shares hosts, devices and quotas.
        let store: any GatewayStore
        do {
            store = if let url = configuration.databaseURL {
                try await PostgreSQLGatewayStore.open(url: url, callTimeout: configuration.storeCallTimeout)
            } else {
                try await SQLiteGatewayStore.open(path: configuration.databasePath)
            }
        } catch {
            await android?.shutdown()  // its lease, or the shared FCM client outlives the relay
            throw error
        }
        // The previous run's windows, before anything new is queued.
        let previous: [GatewayOutboxRow]
        do {
            previous = try await store.adoptOutbox()
        } catch {
            await android?.shutdown()
            try? await store.close()
            throw error
        }
        let gateway = RelayGateway(settings: settings, store: store, sharedByRelays: configuration.databaseURL != nil, channel: channel,
                                   android: android, scheduler: scheduler, relay: relay, logger: logger)
        restore(previous, into: gateway.service.coalescer, logger: logger)
        return gateway
    }

    /// `sharedByRelays`: the store is a PostgreSQL database other relays may use too, whose
    /// outbox rows this one takes over when they end. (A SQLite file serves one relay at a time:
    /// the rows of its previous run are taken over at start-up.)
    private init(settings: GatewayConfiguration, store: any GatewayStore, sharedByRelays: Bool, channel: any DeliveryChannel,
                 android: (any GatewayAndroidLane)?, scheduler: any Scheduler, relay: RelayService, logger: Logger) {
        let counters = GatewayCounters()
        let attempts = GatewayAttemptCounter()
        let outbox = GatewayOutboxDelivery(
            deliverer: GatewayDeliverer(apns: channel, android: android, configuration: settings, clock: scheduler.clock),
            store: store, clock: scheduler.clock, counters: counters, attempts: attempts, logger: logger)
        let coalescer = GatewayCoalescer(windowMs: settings.coalesceMs, scheduler: scheduler) { await outbox.attempt($0) }
        configuration = settings
        self.store = store
        self.android = android
        self.attempts = attempts
        self.logger = logger
        let service = GatewayService(configuration: settings, clients: relay.configuration.clientAddresses,
                                     maxKeys: relay.configuration.rateLimitMaxKeys, store: store, clock: scheduler.clock,
                                     coalescer: coalescer, counters: counters, metrics: relay.metrics, logger: logger,
                                     relayReady: { relay.isReady })
        self.service = service
        let maintenance = maintenance
        let clock = scheduler.clock
        func every(_ intervalMs: Int64, _ name: String, _ prune: @escaping @Sendable (Int64) async throws -> Int) -> any ScheduledJob {
            scheduler.scheduleRepeating(everyMs: intervalMs) {
                // Read when the job fires: the prune task may start after the clock moved on.
                let now = clock.nowMilliseconds
                maintenance.start {
                    do {
                        _ = try await prune(now)
                    } catch {
                        logger.error("gateway prune failed; it runs again later", ["table": name, "error": "\(type(of: error))"])
                    }
                }
            }
        }
        let adoption = sharedByRelays ? [scheduler.scheduleRepeating(everyMs: Self.adoptionIntervalMs) {
            maintenance.start {
                do {
                    Self.restore(try await store.adoptOutbox(), into: coalescer, logger: logger)
                } catch {
                    logger.error("gateway outbox: taking over rows failed; tried again later", ["error": "\(type(of: error))"])
                }
            }
        }] : []
        jobs = adoption + [
            every(60_000, "push_challenges") { try await store.pruneChallenges(nowMs: $0) },
            every(600_000, "push_sessions") { try await store.pruneSessions(nowMs: $0) },
            every(1_800_000, "push_send_log") { try await store.pruneSendLog(nowMs: $0) },
            every(600_000, "push_hosts") { try await store.pruneHosts(nowMs: $0, idleMs: settings.hostTTLMs) },
            scheduler.scheduleRepeating(everyMs: GatewayReadiness.refreshIntervalMs) {
                maintenance.start { await service.readiness.refresh(store) }
            },
            scheduler.scheduleRepeating(everyMs: 60_000) {
                if let line = counters.minuteLine() { logger.info("gateway counters", ["counters": line]) }
            },
        ]
        logger.info("gateway routes on", ["origin": settings.publicURL, "coalesceMs": "\(settings.coalesceMs)"])
    }

    // MARK: - Server wiring

    /// Adds the gateway's routes.
    func addRoutes(to router: inout Router) {
        let service = service
        for route in GatewayRoute.allCases {
            router.add(route.method, route.pattern) { request in
                Self.http(await service.handle(route: route, request: request))
            }
        }
    }

    /// The gateway's counters and its pending-notifications gauge in Prometheus text, appended
    /// to the relay's metrics.
    var metricsText: String {
        service.counters.render() + attempts.render() + "# TYPE pushgate_gateway_pending_notifications gauge\n"
            + "pushgate_gateway_pending_notifications \(service.coalescer.pendingNotifications)\n"
    }

    /// The body cap of every gateway route: 16 384 bytes, by `Content-Length` or while a chunked
    /// body streams, answered 413 `request_too_large` (protocol/gateway.md §1.1).
    static let bodyLimits: [String: HTTPBodyLimit] = Dictionary(
        GatewayRoute.allCases.map { ($0.pattern, HTTPBodyLimit(maxBytes: GatewayService.maxBodyBytes,
                                                              tooLargeResponse: http(.error(.requestTooLarge)))) },
        uniquingKeysWith: { first, _ in first })

    /// The pre-body checks of a gateway route; `nil` for other routes or when admitted.
    func admit(_ request: HTTPRequest) -> HTTPResponse? {
        guard let route = GatewayRoute.matching(method: request.method, pattern: request.route),
              let refusal = service.admit(route: route, peer: request.peerAddress, headers: request.headers) else { return nil }
        return Self.http(refusal)
    }

    private static func http(_ response: RelayResponse) -> HTTPResponse {
        HTTPResponse(status: response.status, headers: ["content-type": response.contentType], body: response.body)
    }

    // MARK: - Lifecycle and observation

    /// Stops the jobs, flushes every collecting window and waits for the deliveries, then closes
    /// the store; windows waiting for a retry stay in the outbox table. Call after the HTTP server
    /// stopped and before the provider connections close.
    public func shutdown() async {
        jobs.forEach { $0.cancel() }
        let open = service.coalescer.openWindows
        if open > 0 { logger.info("flushing open coalescing windows", ["windows": "\(open)"]) }
        await service.coalescer.flushAll()
        await maintenance.waitUntilIdle()
        await android?.shutdown()
        do {
            try await store.close()
        } catch {
            logger.error("gateway store close failed", ["error": "\(type(of: error))"])
        }
    }

    /// Puts outbox rows taken over into windows, and says so in the log.
    private static func restore(_ rows: [GatewayOutboxRow], into coalescer: GatewayCoalescer, logger: Logger) {
        guard !rows.isEmpty else { return }
        coalescer.restore(rows)
        logger.info("gateway outbox: windows taken over from a relay that ended",
                    ["notifications": "\(rows.count)", "registrations": "\(Set(rows.map(\.registrationId)).count)"])
    }

    /// Notifications waiting in open coalescing windows (collecting, or waiting for a retry).
    public var pendingNotifications: Int { service.coalescer.pendingNotifications }

    /// Open coalescing windows (one per registration with pending notifications).
    public var openWindows: Int { service.coalescer.openWindows }

    /// Returns once every delivery started by a flushed window has finished.
    func waitForDeliveries() async { await service.coalescer.deliveries.waitUntilIdle() }

    /// Returns once every prune started by the scheduler has finished.
    func waitForMaintenance() async { await maintenance.waitUntilIdle() }

    /// A §10 counter's total since start (`send_queued`, `delivery_error`, …); 0 for unknown names.
    public func counter(_ name: String) -> Int {
        GatewayCounters.Event(rawValue: name).map(service.counters.total) ?? 0
    }

    /// Delivery attempts since start that ended with `outcome` (`sent`, `unavailable`, …); 0 for unknown names.
    func deliveryAttempts(_ outcome: String) -> Int {
        GatewayAttemptCounter.Outcome(rawValue: outcome).map(attempts.total) ?? 0
    }
}
