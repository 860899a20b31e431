import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateCore
import PushgateProviders

/// The host's client for `POST {pushRelayUrl}/v1/push`, hapi's relay protocol: one envelope
/// for one device per request, no authentication.
///
/// - Important: hapi-path.md §7 (host side) — URL = base without trailing `/` + `/v1/push`;
///   `Content-Type: application/json` and no auth header; 10 s for the whole request;
///   200 with `ok === true` → sent, 410 with `ok === false` and `code === "unregistered"` →
///   dead, anything else (other statuses, non-JSON bodies, network errors, timeouts) → failed,
///   with no retry. Only the status code is logged, never the body.
public final class HapiRelayClient: Sendable {
    /// The whole-request deadline.
    public static let timeoutSeconds: Double = 10
    /// The priority the host sends in v1.
    public static let priority: Int64 = 10

    /// The platform member of a request.
    public enum Platform: String, Sendable {
        case ios, android
    }

    /// `<base>/v1/push`.
    public let pushURL: String
    private let session: URLSession
    private let logger: Logger

    /// `timeoutSeconds` other than the default is for tests only; give whole seconds
    /// (FoundationNetworking on Linux rounds a fraction down, 0.3 s to an immediate timeout).
    public init(baseURL: String, timeoutSeconds: Double = HapiRelayClient.timeoutSeconds, logger: Logger) {
        pushURL = Self.pushURL(base: baseURL)
        self.logger = logger.named("hapi-relay")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// The request URL for a relay base URL (trailing `/` removed; a signed-relay `…/v1/push/send`
    /// URL is accepted too, as host.md §5 allows for the same setting).
    public static func pushURL(base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/v1/push/send") { base.removeLast("/send".count) } else { base += "/v1/push" }
        return base
    }

    /// The request body: `platform`, `token`, `envelope`, `collapseId` (iOS only, when
    /// non-empty) and `priority` 10.
    public static func body(platform: Platform, token: String, envelope: String, collapseId: String?) -> [UInt8] {
        var object = JSONObject([("platform", .string(platform.rawValue)), ("token", .string(token)), ("envelope", .string(envelope))])
        if platform == .ios, let collapseId, !collapseId.isEmpty { object["collapseId"] = .string(collapseId) }
        object["priority"] = .integer(priority)
        return JSONValue.object(object).serializedBytes()
    }

    /// Posts one envelope and classifies the answer. Never throws.
    public func push(platform: Platform, token: String, envelope: String, collapseId: String?) async -> HapiPushOutcome {
        guard let url = URL(string: pushURL) else { return .failed(reason: "relay URL is not valid") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Self.body(platform: platform, token: token, envelope: envelope, collapseId: collapseId))
        let outcome: HapiPushOutcome
        do {
            let (data, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            outcome = Self.classify(status: status, body: Array(data))
            if outcome != .sent {
                logger.info("hapi relay did not accept a push", ["platform": platform.rawValue, "token": Redact.token(token),
                                                                 "status": "\(status)", "outcome": outcome.label])
            }
        } catch {
            outcome = .failed(reason: "network error or timeout")
            logger.warning("hapi relay push did not complete (network error or 10 s timeout); check pushRelayUrl",
                           ["platform": platform.rawValue, "token": Redact.token(token)])
        }
        return outcome
    }

    /// The outcome of a relay answer.
    static func classify(status: Int, body: [UInt8]) -> HapiPushOutcome {
        let object = (status == 200 || status == 410) ? (try? JSONValue.parse(body))?.objectValue : nil
        if status == 200 && object?["ok"] == .bool(true) { return .sent }
        if status == 410 && object?["ok"] == .bool(false) && object?["code"] == .string("unregistered") {
            return .dead(reason: "unregistered")
        }
        return .failed(reason: "HTTP \(status)")
    }
}
