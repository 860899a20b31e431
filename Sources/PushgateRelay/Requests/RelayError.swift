import PushgateStore

/// A refused relay request: the HTTP status and the `error` code of its body.
///
/// - Important: codes and statuses are docs/relay.md's error table; the body never echoes input.
public struct RelayError: Error, Sendable, Equatable {
    public let status: Int
    public let code: String
    /// The setting that would make the relay serve the request (a 501), named in the body.
    public var setting: String?
    /// When a refused request may succeed (`Retry-After`, seconds), if the relay knows.
    public var retryAfterSeconds: Int?

    init(status: Int, code: String, setting: String? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.setting = setting
        self.retryAfterSeconds = retryAfterSeconds
    }

    public static let invalidRequest = RelayError(status: 400, code: "invalid_request")
    public static let unsupportedPlatform = RelayError(status: 400, code: "unsupported_platform")
    /// An `android` register on a relay without the signed routes' Android account.
    public static let androidNotConfigured = RelayError(status: 501, code: "unsupported_platform",
                                                        setting: AndroidAlertSettings.accountSetting)
    public static let timestamp = RelayError(status: 401, code: "timestamp")
    public static let invalidSignature = RelayError(status: 401, code: "invalid_signature")
    public static let replay = RelayError(status: 401, code: "replay")
    public static let payloadTooLarge = RelayError(status: 413, code: "payload_too_large")
    public static let rateLimited = RelayError(status: 429, code: "rate_limited")
    /// A `start` to a push-to-start token that had its starts this hour (docs/relay.md "Live Activity").
    static func startLimited(retryAfterSeconds: Int) -> RelayError {
        RelayError(status: 429, code: "rate_limited", retryAfterSeconds: retryAfterSeconds)
    }
    public static let tokenLimit = RelayError(status: 429, code: "token_limit")
    public static let hostTokenLimit = RelayError(status: 429, code: "host_token_limit")
    public static let bindingLimit = RelayError(status: 429, code: "binding_limit")
    public static let internalError = RelayError(status: 500, code: "internal")
    public static let dependencyUnavailable = RelayError(status: 503, code: "dependency_unavailable")

    /// The answer to a store or replay-set call that failed: 503 when the database could not
    /// answer (unreachable, or not within the store deadline), else 500.
    static func storeFailure(_ error: any Error) -> RelayError {
        (error as? PostgreSQLError)?.isUnavailable == true ? .dependencyUnavailable : .internalError
    }
}
