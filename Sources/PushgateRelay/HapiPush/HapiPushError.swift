import PushgateCore

/// A `POST /v1/push` answer other than 200: its status and `code`, and an optional message
/// that names the broken rule.
///
/// - Important: protocol/hapi-push.md §7 relay side — errors are `{"ok":false,"code":"<code>"}` with an
///   optional `message` that never echoes the token or the envelope.
struct HapiPushError: Error, Equatable {
    let status: Int
    let code: String
    var message: String?

    static func badRequest(_ message: String) -> HapiPushError { HapiPushError(status: 400, code: "bad_request", message: message) }
    static let methodNotAllowed = HapiPushError(status: 405, code: "method_not_allowed", message: "use POST")
    static let unregistered = HapiPushError(status: 410, code: "unregistered")
    static func tooLarge(_ message: String) -> HapiPushError { HapiPushError(status: 413, code: "too_large", message: message) }
    static let rateLimited = HapiPushError(status: 429, code: "rate_limited")
    static let unsupportedPlatform = HapiPushError(status: 501, code: "unsupported_platform",
                                                   message: "this relay has no provider for the platform")
    static let upstream = HapiPushError(status: 502, code: "upstream")

    var response: RelayResponse {
        var body = JSONObject([("ok", false), ("code", .string(code))])
        if let message { body["message"] = .string(message) }
        var response = RelayResponse.json(status, .object(body))
        response.errorCode = code
        return response
    }
}
