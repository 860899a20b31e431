import PushgateCore
import PushgateHTTP

/// Sends FCM HTTP v1 messages with a service account: the RS256 assertion is exchanged for a
/// cached OAuth access token, and each send is classified by the dead-token rules. OAuth and
/// sends share one HTTP/2 client.
///
/// - Important: protocol/hapi-push.md §8 — OAuth flow and caching, `POST /v1/projects/<project_id>/messages:send`
///   with `Authorization: Bearer`, dead-token rules A and B, a 401 clears the cached token.
public final class FCMClient: Sendable {
    /// The project messages are addressed to.
    public let projectId: String
    private let configuration: FCMConfiguration
    private let sendPath: String
    private let pool: HTTP2ClientPool
    private let tokens: FCMAccessTokenCache
    private let logger: Logger

    /// Builds the client; connections open on first use. Throws when the token URI is not an
    /// https URL or the extra CA file cannot be loaded.
    /// `clock` dates OAuth assertions; `deadlineClock` times requests, reconnects and pings.
    public init(configuration: FCMConfiguration, clock: any WallClock = SystemClock(),
                deadlineClock: any MonotonicClock = SystemMonotonicClock(), logger: Logger) throws {
        let endpoint = try HTTPSEndpoint(url: configuration.tokenURI)
        let pool = try HTTP2ClientPool(configuration: configuration.http2, clock: deadlineClock, logger: logger.named("fcm-http2"))
        let account = configuration.account
        let timeout = configuration.timeoutMilliseconds
        self.configuration = configuration
        self.pool = pool
        self.logger = logger.named("fcm")
        projectId = account.projectId
        sendPath = "/v1/projects/\(account.projectId)/messages:send"
        tokens = FCMAccessTokenCache(clock: clock) {
            try await Self.exchange(account: account, endpoint: endpoint, pool: pool, clock: clock, timeout: timeout)
        }
    }

    /// Sends `message`. Never throws: failures (OAuth included) are outcomes.
    public func send(_ message: FCMMessage) async -> HapiPushOutcome {
        let outcome: HapiPushOutcome
        do {
            let token = try await tokens.token()
            outcome = await send(message, accessToken: token)
        } catch {
            outcome = .failed(reason: "oauth " + Self.describe(error), failure: Self.exchangeFailure(error))
        }
        log(outcome, message)
        return outcome
    }

    /// The deadline of one request to FCM.
    public var requestTimeoutMilliseconds: Int64 { configuration.timeoutMilliseconds }

    /// Lets requests in flight finish, then closes every connection.
    public func shutdown() async {
        await pool.shutdown()
    }

    private func send(_ message: FCMMessage, accessToken: OAuthAccessToken) async -> HapiPushOutcome {
        let request = HTTP2Request(
            origin: configuration.origin, method: "POST", path: sendPath,
            headers: [HTTP2Header("authorization", "Bearer " + accessToken.value), HTTP2Header("content-type", "application/json")],
            body: message.body, timeoutMilliseconds: configuration.timeoutMilliseconds)
        do {
            let response = try await pool.send(request)
            if response.status == 401 { await tokens.invalidate(accessToken) }
            return FCMResponseClassifier.classify(status: response.status, headers: response.headers, body: response.body)
        } catch {
            return .failed(reason: Self.describe(error), failure: .of(error))
        }
    }

    /// One OAuth exchange: a fresh assertion posted as a form; the answer must be 2xx JSON.
    private static func exchange(account: ServiceAccount, endpoint: HTTPSEndpoint, pool: HTTP2ClientPool,
                                 clock: any WallClock, timeout: Int64) async throws -> OAuthAccessToken {
        let issuedAt = clock.nowMilliseconds
        let assertion = try OAuthAssertion.make(account: account, issuedAt: issuedAt / 1000)
        let request = HTTP2Request(
            origin: endpoint.origin, method: "POST", path: endpoint.path,
            headers: [HTTP2Header("content-type", "application/x-www-form-urlencoded")],
            body: OAuthAccessToken.requestBody(assertion: assertion), timeoutMilliseconds: timeout)
        let response = try await pool.send(request)
        guard (200..<300).contains(response.status) else {
            throw OAuthExchangeError(description: "HTTP \(response.status)",
                                     failure: .of(status: response.status, headers: response.headers))
        }
        guard let token = OAuthAccessToken(response: response.body, issuedAtMilliseconds: issuedAt) else {
            throw OAuthExchangeError(description: "answer without access_token", failure: .rejected)
        }
        return token
    }

    /// Why the exchange failed, without any body text, and whether another try may help.
    private struct OAuthExchangeError: Error, CustomStringConvertible {
        let description: String
        let failure: ProviderFailure
    }

    /// A failed exchange means the push itself never left: whatever happened to the exchange,
    /// sending again cannot deliver it twice.
    private static func exchangeFailure(_ error: any Error) -> ProviderFailure {
        switch error {
        case let error as OAuthExchangeError: error.failure
        case let error as HTTP2ClientError: ProviderFailure.of(error) == .rejected ? .rejected : .notSent
        default: .rejected
        }
    }

    /// A failure's kind only: transport errors by class, never a remote body.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTP2ClientError: error.kind.name
        case let error as OAuthExchangeError: error.description
        default: "signing failed"
        }
    }

    private func log(_ outcome: HapiPushOutcome, _ message: FCMMessage) {
        switch outcome {
        case .sent:
            break
        case .dead(let reason):
            logger.info("FCM says the registration token is dead; its row should be deleted",
                        ["token": Redact.token(message.token), "reason": reason])
        case .failed(let reason, _):
            logger.warning("FCM send failed; the token is kept",
                           ["token": Redact.token(message.token), "reason": reason])
        }
    }
}
