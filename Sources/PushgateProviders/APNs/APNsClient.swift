import PushgateCore
import PushgateHTTP

/// Sends pushes to APNs over long-lived HTTP/2 connections with a shared ES256 provider token,
/// and reports one ``APNsOutcome`` per push.
///
/// - Important: protocol/signed-relay.md §7 — HTTP/2 + ALPN h2, connection reuse, GOAWAY and PING
///   handling, one provider token per key renewed after 50 minutes (never twice within 20),
///   one renewal and one retry on `ExpiredProviderToken`, a deadline per request.
public final class APNsClient: Sendable {
    private let configuration: APNsConfiguration
    private let pool: HTTP2ClientPool
    private let tokens: APNsProviderTokenCache
    private let logger: Logger

    /// Builds the client; connections open on first use. Throws when the extra CA file cannot be loaded.
    /// `clock` dates provider tokens; `deadlineClock` times requests, reconnects and pings.
    public init(configuration: APNsConfiguration, clock: any WallClock = SystemClock(),
                deadlineClock: any MonotonicClock = SystemMonotonicClock(), logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger.named("apns")
        pool = try HTTP2ClientPool(configuration: configuration.http2, clock: deadlineClock, logger: logger.named("apns-http2"))
        tokens = APNsProviderTokenCache(privateKey: configuration.privateKey, keyId: configuration.keyId,
                                        teamId: configuration.teamId, clock: clock)
    }

    /// Sends `notification` to the `environment` service. Never throws: failures are outcomes.
    public func send(_ notification: APNsNotification, environment: APNsEnvironment) async -> APNsOutcome {
        let origin = configuration.origin(for: environment)
        let token = tokens.token()
        var verdict = await attempt(notification, origin: origin, authorization: token.authorization)
        if verdict == .providerTokenExpired {
            logger.info("APNs provider token expired; renewing it and sending once more",
                        ["token": Redact.token(notification.deviceToken), "environment": environment.rawValue])
            verdict = await attempt(notification, origin: origin, authorization: tokens.renew(rejected: token).authorization)
        }
        let outcome: APNsOutcome
        switch verdict {
        case .outcome(let result): outcome = result
        case .providerTokenExpired: outcome = .transient(reason: APNsResponseClassifier.expiredProviderToken, failure: .rejected)
        }
        log(outcome, notification, environment)
        return outcome
    }

    /// The deadline of one request to APNs.
    public var requestTimeoutMilliseconds: Int64 { configuration.http2.requestTimeoutMilliseconds }

    /// Lets pushes in flight finish, then closes every connection.
    public func shutdown() async {
        await pool.shutdown()
    }

    /// Connection and stream figures for `environment` (for metrics).
    public func statistics(for environment: APNsEnvironment) -> HTTP2OriginStatistics {
        pool.statistics(for: configuration.origin(for: environment))
    }

    private func attempt(_ notification: APNsNotification, origin: HTTP2Origin, authorization: String) async -> APNsResponseClassifier.Verdict {
        let request = APNsRequestBuilder.request(for: notification, origin: origin, authorization: authorization)
        do {
            return APNsResponseClassifier.classify(try await pool.send(request))
        } catch {
            return .outcome(APNsResponseClassifier.classify(error))
        }
    }

    private func log(_ outcome: APNsOutcome, _ notification: APNsNotification, _ environment: APNsEnvironment) {
        switch outcome {
        case .delivered:
            break
        case .dead(let reason):
            logger.info("APNs says the device token is dead; its bindings should be deleted",
                        ["token": Redact.token(notification.deviceToken), "reason": reason, "environment": environment.rawValue])
        case .transient(let reason, _):
            logger.warning("APNs push failed; the token is kept, the push may be retried later",
                           ["token": Redact.token(notification.deviceToken), "reason": reason, "environment": environment.rawValue])
        }
    }
}
