import PushgateCore
import PushgateHTTP

/// The host's HTTP API (protocol/host-api.md §2) on ``HTTPServer``.
///
/// - Important: protocol/host-api.md §2 — bearer auth on `/api/*`, 400 `invalid_request` with the field,
///   413 over 64 KiB, 404 for unknown paths; nothing a phone sends is logged. A known path asked
///   with another method is 405 with `allow`, from the router (docs/host.md "API").
public final class HostAPI: Sendable {
    /// The largest request body.
    public static let maxBodyBytes = 64 * 1024

    public let server: HTTPServer
    private let logger: Logger

    /// Binds `host:port` and starts serving `service`.
    public init(service: HostService, host: String, port: UInt16, logger: Logger) throws {
        self.logger = logger.named("api")
        let auth = BearerAuth(accessToken: Array(service.settings.accessToken.utf8))
        var configuration = HTTPServerConfiguration(host: host, port: port, maxBodyBytes: Self.maxBodyBytes,
                                                    payloadTooLargeResponse: APIResponse.payloadTooLarge,
                                                    defaultHeaders: ["cache-control": "no-store"], logger: logger.named("http"))
        configuration.eventLoop = service.eventLoop
        server = try HTTPServer(configuration: configuration, router: Self.router(service, logger: logger.named("api")),
                                preBody: { auth.check($0) })
    }

    public var port: UInt16 { server.port }

    /// Stops accepting, lets requests in flight finish (up to `grace`), then stops.
    public func shutdown(grace: Duration) async {
        server.stopAccepting()
        _ = await server.waitForInFlight(timeout: grace)
        server.stop()
    }

    static func router(_ service: HostService, logger: Logger) -> Router {
        var router = Router()
        router.post("/api/push/apns-token") { request in
            await handle(request, logger) { json in
                try await service.registerAlertToken(try TokenRequest(json: json).token)
                return APIResponse.ok
            }
        }
        router.delete("/api/push/apns-token") { request in
            await handle(request, logger) { json in
                let reader = try FieldReader(json, path: "")
                try reader.requireOnly(["token", "platform", "client"])
                let platform = try TokenRequest.platform(reader, inferringFrom: reader.object["token"]?.stringValue)
                try await service.removeAlertToken(try TokenRequest.deviceToken(reader, platform: platform), platform: platform)
                return APIResponse.ok
            }
        }
        router.post("/api/push/visibility") { request in
            await handle(request, logger) { json in
                try await service.report(try VisibilityReport(json: json))
                return APIResponse.ok
            }
        }
        for action in ["view", "message-sent"] {
            router.post("/api/sessions/:id/\(action)") { _ in
                await handle(nil, logger) { _ in
                    try await service.clearBadge()
                    return APIResponse.ok
                }
            }
        }
        // An event waits on the store and the relay; whichever thread answers carries it on.
        router.add("POST", "/api/events", RouteHandler(resumesInline: true) { request in
            await handle(request, logger) { json in
                let result = await service.handle(try HostEvent(json: json))
                return APIResponse.json(result.storeUnavailable ? 503 : (result.pending ? 202 : 200), result.json)
            }
        })
        router.post("/api/devices/register") { request in
            await handle(request, logger) { json in try await HapiDeviceRoutes.register(json, store: service.store, logger: logger) }
        }
        router.delete("/api/devices/register") { request in
            await handle(request, logger) { json in try await HapiDeviceRoutes.unregister(json, store: service.store, logger: logger) }
        }
        router.get("/api/status") { _ in
            await handle(nil, logger) { _ in APIResponse.json(200, try await service.status()) }
        }
        addLiveActivityRoutes(to: &router, service.liveActivities, clock: service.scheduler.clock, logger: logger)
        return router
    }

    /// Parses the body (when `request` is given) and maps failures to 400/500.
    static func handle(_ request: HTTPRequest?, _ logger: Logger,
                               _ body: (JSONValue) async throws -> HTTPResponse) async -> HTTPResponse {
        do {
            var json = JSONValue.null
            if let request {
                guard let parsed = try? JSONValue.parse(request.body) else {
                    return APIResponse.invalid(WireFieldError(field: "body", problem: "must be JSON"))
                }
                json = parsed
            }
            return try await body(json)
        } catch let error as WireFieldError {
            return APIResponse.invalid(error)
        } catch {
            logger.error("request failed inside the host; see the error", ["error": "\(error)"])
            return APIResponse.internalError
        }
    }
}

/// Checks `Authorization: Bearer <accessToken>` on every `/api/*` request, in constant time.
///
/// - Important: protocol/host-api.md §1 — 401 `{"error":"unauthorized"}`.
struct BearerAuth: Sendable {
    let accessToken: [UInt8]

    /// `nil` when the request may proceed, else the 401 answer.
    func check(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.path.hasPrefix("/api/") else { return nil }
        guard let header = request.headers["authorization"], header.count > 7,
              header.prefix(7).lowercased() == "bearer " else { return APIResponse.unauthorized }
        // ConstantTime compares equal-length inputs in constant time; a length mismatch fails at once
        // and tells an attacker only the token's length, which is public (43 chars by default).
        return ConstantTime.equals(Array(header.dropFirst(7).utf8), accessToken) ? nil : APIResponse.unauthorized
    }
}
