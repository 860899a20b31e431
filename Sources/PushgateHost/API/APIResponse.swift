import PushgateCore
import PushgateHTTP

/// The host API's JSON answers.
enum APIResponse {
    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json", "cache-control": "no-store"],
                     body: value.serializedBytes())
    }

    static let ok = json(200, .object(JSONObject([("ok", true)])))
    static let unauthorized = json(401, .object(JSONObject([("error", "unauthorized")])))
    static let payloadTooLarge = json(413, .object(JSONObject([("error", "payload_too_large")])))
    static let internalError = json(500, .object(JSONObject([("error", "internal")])))

    /// 400 naming the field and the rule it breaks; the submitted value is never echoed.
    static func invalid(_ error: WireFieldError) -> HTTPResponse {
        json(400, .object(JSONObject([("error", "invalid_request"), ("field", .string(error.field)),
                                      ("message", .string(error.description))])))
    }
}
