import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// `POST /v1/push`, the hapi-compatible route: no authentication, an encrypted envelope for one
/// device token, delivered through the platform's lane under a per-IP and a per-token bucket.
///
/// - Important: docs/relay.md "`POST /v1/push`: the hapi route" — the order of checks (route and
///   method, the IP bucket before the body is read; body size, body, platform, token, envelope,
///   collapse id, priority, provider, token bucket, send), the error bodies, the buckets
///   (300/min per IP, 30/min per `<platform>:<token>`) and log lines that never hold the token,
///   the envelope, the collapse id or a provider body.
final class HapiPushService: Sendable {
    /// The route's path.
    static let path = "/v1/push"
    /// The route's name in metrics.
    static let name = "hapi-push"
    /// The route's body cap (the signed routes: 64 KiB on `send`, 16 KiB on the others).
    static let maxBodyBytes = 64 * 1024

    private let lanes: HapiPushLanes
    private let byIP: TokenBucketLimiter
    private let byToken: TokenBucketLimiter
    private let retry: ProviderRetry
    private let metrics: RelayMetrics
    private let clients: ClientAddressPolicy
    private let clock: any WallClock
    private let logger: Logger

    /// `maxKeys`: keys each bucket set tracks.
    init(lanes: HapiPushLanes, retry: ProviderRetry, metrics: RelayMetrics, clients: ClientAddressPolicy, maxKeys: Int,
         clock: any WallClock, logger: Logger) {
        self.lanes = lanes
        byIP = TokenBucketLimiter(capacity: 300, refillPerMinute: 300, maxKeys: maxKeys)
        byToken = TokenBucketLimiter(capacity: 30, refillPerMinute: 30, maxKeys: maxKeys)
        self.retry = retry
        self.metrics = metrics
        self.clients = clients
        self.clock = clock
        self.logger = logger
    }

    /// The 413 for a body over 64 KiB, answered by the HTTP server while it streams the body.
    static var tooLarge: RelayResponse { HapiPushError.tooLarge("request body over 64 KiB").response }

    /// The check before the body is read, once the router has let only POST through: the per-IP
    /// bucket, so a client posting junk bodies is throttled by its IP like any other (docs/relay.md).
    func admit(peer: String, headers: HTTPHeaders) -> RelayResponse? {
        let ip = clients.client(peer: peer, headers: headers)
        return byIP.take(ip, nowMs: clock.nowMilliseconds) ? nil : answered(HapiPushError.rateLimited.response)
    }

    /// The checks after the body has been read in full.
    func handle(_ request: HTTPRequest) async -> RelayResponse {
        let started = ContinuousClock.now
        let startedAtMs = retry.clock.nowMilliseconds
        let push: HapiPushRequest
        do {
            push = try HapiPushRequest(body: request.body)
        } catch {
            logger.debug("hapi push refused", ["outcome": error.code, "message": error.message ?? ""])
            return answered(error.response)
        }
        let response = await deliver(push, startedAtMs: startedAtMs)
        let milliseconds = (ContinuousClock.now - started) / .milliseconds(1)
        logger.info("hapi push", [
            "platform": push.platform.rawValue, "token": Redact.token(push.token), "outcome": response.errorCode ?? "sent",
            "durationMs": String(format: "%.1f", milliseconds),
        ])
        return answered(response)
    }

    /// A lane for the platform, the per-token bucket, the send (retried as docs/relay.md
    /// "Retries" says).
    private func deliver(_ push: HapiPushRequest, startedAtMs: Int64) async -> RelayResponse {
        guard let lane = lanes.lane(for: push.platform) else { return HapiPushError.unsupportedPlatform.response }
        guard byToken.take(push.platform.rawValue + ":" + push.token, nowMs: clock.nowMilliseconds) else {
            return HapiPushError.rateLimited.response
        }
        let outcome = await retry.run(startedAtMs: startedAtMs, attemptTimeoutMs: lane.requestTimeoutMilliseconds,
                                      replacesDuplicates: lane.replacesDuplicates(of: push)) {
            await lane.push(push)
        }
        guard let outcome else {
            metrics.provider(result: "refused", reason: "in_flight_full")
            return HapiPushError.rateLimited.response
        }
        switch outcome {
        case .sent:
            metrics.provider(result: "delivered", reason: "ok")
            return .json(200, ["ok": true])
        case .dead(let reason):
            metrics.provider(result: "dead", reason: reason)
            return HapiPushError.unregistered.response
        case .failed(let reason, .throttled(let retryAfterSeconds)):
            metrics.provider(result: "transient", reason: reason)
            var response = HapiPushError.rateLimited.response
            response.retryAfterSeconds = retryAfterSeconds
            return response
        case .failed(let reason, let failure):
            metrics.provider(result: "transient", reason: reason)
            var response = HapiPushError.upstream.response
            response.retryAfterSeconds = failure.retryAfterSeconds
            return response
        }
    }

    /// Lets sends in flight finish and closes the lanes' own clients.
    func shutdown() async { await lanes.shutdown() }

    private func answered(_ response: RelayResponse) -> RelayResponse {
        metrics.request(route: Self.name, status: response.status, outcome: response.errorCode ?? "ok")
        return response
    }
}
