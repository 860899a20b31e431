import PushgateCore
import PushgateHTTP
import PushgateStore

/// A running relay: binding store, delivery channel, service and HTTP server, plus the
/// scheduler job that purges expired limiter and replay keys.
///
/// - Important: shutdown follows protocol/signed-relay.md §10 line 27: stop accepting, let in-flight
///   provider requests finish (up to the grace period), close the store.
public final class RelayServer: Sendable {
    public let service: RelayService
    /// The Orca-compatible gateway, when configured (docs/gateway.md).
    public let gateway: RelayGateway?
    /// The port the HTTP server listens on.
    public let port: UInt16
    /// The port of the metrics listener; `nil` when `METRICS_LISTEN` is `off`.
    public var metricsPort: UInt16? { metricsListener?.port }
    private let http: HTTPServer
    private let metricsListener: MetricsListener?
    private let storage: RelayStorage
    private let channel: any DeliveryChannel
    private let hapi: HapiPushService
    private let purgeJob: any ScheduledJob
    private let logger: Logger

    /// Opens the store, starts the metrics listener and the HTTP server, and schedules the purges.
    /// `deadlineClock` times the requests' deadlines (the channel's provider requests run on the same one).
    public init(configuration: RelayConfiguration, channel: any DeliveryChannel, scheduler: any Scheduler,
                deadlineClock: any MonotonicClock = SystemMonotonicClock(), logger: Logger) async throws {
        let clock = OffsetClock(scheduler.clock, offsetMs: configuration.testClockOffsetMs)
        let storage = try await RelayStorage.open(configuration, clock: clock, logger: logger)
        let fcmClients = RelayFCMClients()
        let android: (any AndroidAlertLane)?
        do {
            android = try AndroidAlertSettings.lane(configuration.android, fcmClients: fcmClients, channel: channel,
                                                    clock: scheduler.clock, logger: logger)
        } catch {
            try? await storage.close()
            throw error
        }
        let service = RelayService(configuration: configuration, store: storage.bindings, channel: channel, android: android,
                                   clock: clock, deadlineClock: deadlineClock, logger: logger, replay: storage.replay)
        let gateway: RelayGateway?
        do {
            gateway = try await RelayGateway.start(configuration: configuration, fcmClients: fcmClients, channel: channel,
                                                   scheduler: scheduler, relay: service, logger: logger)
        } catch {
            await android?.shutdown()
            try? await storage.close()
            throw error
        }
        var hapiService: HapiPushService?
        var metricsListener: MetricsListener?
        do {
            metricsListener = try configuration.metricsListen.map { address in
                try MetricsListener(address: address, logger: logger) {
                    await service.metricsText() + (gateway?.metricsText ?? "")
                }
            }
            let hapi = HapiPushService(lanes: try HapiPushLanes.make(configuration, fcmClients: fcmClients, channel: channel,
                                                                     clock: scheduler.clock, logger: logger),
                                       retry: service.retry, metrics: service.metrics, clients: configuration.clientAddresses,
                                       maxKeys: configuration.rateLimitMaxKeys ?? TokenBucketLimiter.defaultMaxKeys,
                                       clock: scheduler.clock, logger: logger.named("hapi-push"))
            hapiService = hapi  // for the clean-up below, should the server not start
            self.hapi = hapi
            http = try HTTPServer(configuration: Self.httpConfiguration(configuration, logger: logger),
                                  router: Self.router(service, hapi, gateway: gateway), preBody: { request in
                if request.route == HapiPushService.path {
                    return hapi.admit(peer: request.peerAddress, headers: request.headers).map(Self.http)
                }
                if let refusal = gateway?.admit(request) { return refusal }
                guard let route = RelayRoute(rawValue: request.path),
                      let refusal = service.admit(route: route, peer: request.peerAddress, headers: request.headers)
                else { return nil }
                return Self.http(refusal)
            })
        } catch {
            metricsListener?.stop()
            await hapiService?.shutdown()
            await gateway?.shutdown()
            await android?.shutdown()
            try? await storage.close()
            throw error
        }
        self.metricsListener = metricsListener
        self.gateway = gateway
        self.storage = storage
        self.service = service
        self.channel = channel
        self.logger = logger
        port = http.port
        purgeJob = scheduler.scheduleRepeating(everyMs: 10_000) {
            Task {
                await service.purgeExpired()
                HeapTrim.release()
            }
        }
        logger.info("relay listening", ["host": configuration.host, "port": "\(port)",
                                        "metricsPort": metricsListener.map { "\($0.port)" } ?? "off",
                                        "mode": configuration.dryRun ? "dry-run" : "apns"])
    }

    /// Runs `job` soon on the HTTP server's event loop (``HTTPServer/executeOnLoop(_:)``).
    public func executeOnLoop(_ job: @escaping @Sendable () -> Void) { http.executeOnLoop(job) }

    /// Stops accepting, lets in-flight requests finish within `graceSeconds`, then closes everything.
    public func shutdown(graceSeconds: Int = 5) async {
        service.stopAccepting()
        http.stopAccepting()
        purgeJob.cancel()
        logger.info("stopped accepting; letting in-flight requests finish", ["graceSeconds": "\(graceSeconds)"])
        if await !http.waitForInFlight(timeout: .seconds(graceSeconds)) {
            logger.warning("shutdown grace period over with requests still running; they are cut off")
        }
        http.stop()
        metricsListener?.stop()
        await gateway?.shutdown()
        await hapi.shutdown()
        await service.android?.shutdown()
        await channel.shutdown()
        do {
            try await storage.close()
        } catch {
            logger.error("closing the binding store failed", ["error": "\(error)"])
        }
    }

    private static func httpConfiguration(_ configuration: RelayConfiguration, logger: Logger) -> HTTPServerConfiguration {
        var http = HTTPServerConfiguration(
            host: configuration.host, port: UInt16(configuration.port),
            connectionLimit: configuration.maxConnections, perIPConnectionLimit: configuration.maxConnectionsPerIP,
            maxBodyBytes: 16 * 1024,
            payloadTooLargeResponse: http(.error(.payloadTooLarge)),
            defaultHeaders: ["content-type": "application/json", "cache-control": "no-store"],
            logger: logger.named("http"))
        // A proxy in front carries many clients' connections (docs/security.md, M6).
        http.uncappedPeers = configuration.clientAddresses.trustedProxies ?? []
        http.clientIPv6PrefixBits = configuration.clientAddresses.ipv6PrefixBits
        // 100 FCM tokens make a send of about 16.5 KB (docs/relay.md "Android tokens").
        http.routeBodyLimits[RelayRoute.send.rawValue] = HTTPBodyLimit(maxBytes: RelayService.maxSendBodyBytes,
                                                                       tooLargeResponse: Self.http(.error(.payloadTooLarge)))
        http.routeBodyLimits[HapiPushService.path] = HTTPBodyLimit(maxBytes: HapiPushService.maxBodyBytes,
                                                                   tooLargeResponse: Self.http(HapiPushService.tooLarge))
        if configuration.gateway != nil { http.routeBodyLimits.merge(RelayGateway.bodyLimits) { $1 } }
        return http
    }

    private static func router(_ service: RelayService, _ hapi: HapiPushService, gateway: RelayGateway?) -> Router {
        // One table routes and names the allowed methods of a 405 (docs/relay.md "Order of checks").
        var router = Router()
        gateway?.addRoutes(to: &router)
        for route in RelayRoute.allCases {
            // A registration's only wait is its group commit; the store thread finishes it.
            let handler = RouteHandler(resumesInline: route.isRegistration) { request in
                http(await service.handle(route: route, body: request.body,
                                          client: service.client(peer: request.peerAddress, headers: request.headers)))
            }
            router.add(route.isSigned ? "POST" : "GET", route.rawValue, handler)
        }
        router.post(HapiPushService.path) { http(await hapi.handle($0)) }
        // hapi's 405 has a body of its own; the router adds `allow`.
        router.answerMethodNotAllowed(on: HapiPushService.path, with: http(HapiPushError.methodNotAllowed.response))
        return router
    }

    private static func http(_ response: RelayResponse) -> HTTPResponse {
        var headers: HTTPHeaders = ["content-type": response.contentType]
        if let seconds = response.retryAfterSeconds { headers.add("retry-after", String(seconds)) }
        return HTTPResponse(status: response.status, headers: headers, body: response.body)
    }
}

/// A wall clock shifted by a fixed offset (`TEST_CLOCK_OFFSET_MS`), so a test can run the real
/// relay days ahead: binding TTLs and protection windows then pass without waiting.
struct OffsetClock: WallClock {
    let base: any WallClock
    let offsetMs: Int64

    init(_ base: any WallClock, offsetMs: Int64) {
        self.base = base
        self.offsetMs = offsetMs
    }

    var nowMilliseconds: Int64 { base.nowMilliseconds + offsetMs }
}
