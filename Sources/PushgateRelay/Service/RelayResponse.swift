import PushgateCore

/// A relay answer before it becomes HTTP: status, body and its content type.
public struct RelayResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    public var contentType: String
    /// The `error` code of a refusal (for metrics), `nil` otherwise.
    public var errorCode: String?
    /// `Retry-After` in seconds, passed on from a provider that asked to slow down.
    public var retryAfterSeconds: Int?

    static func json(_ status: Int, _ value: JSONValue) -> RelayResponse {
        RelayResponse(status: status, body: value.serializedBytes(), contentType: "application/json")
    }

    static let ok = json(200, ["ok": true])

    static func error(_ error: RelayError) -> RelayResponse {
        var body = JSONObject([("error", .string(error.code))])
        if let setting = error.setting { body["setting"] = .string(setting) }
        var response = json(error.status, .object(body))
        response.errorCode = error.code
        response.retryAfterSeconds = error.retryAfterSeconds
        return response
    }

    /// Unknown path or method: 404 with an empty body.
    static let notFound = RelayResponse(status: 404, body: [], contentType: "application/json")
}
