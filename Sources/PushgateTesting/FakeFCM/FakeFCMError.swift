import PushgateCore

/// A Google API error as FCM HTTP v1 sends it: `{"error":{"code","message","status","details"}}`,
/// with an optional FcmError `errorCode` and BadRequest field violations.
public struct FakeFCMError: Sendable, Equatable {
    /// The HTTP status (also `error.code`).
    public var status: Int
    /// `error.status`: `NOT_FOUND`, `INVALID_ARGUMENT`, `UNAUTHENTICATED`…
    public var errorStatus: String
    public var message: String
    /// The `errorCode` of a `google.firebase.fcm.v1.FcmError` detail, when there is one.
    public var fcmErrorCode: String?
    /// The `field` of each `google.rpc.BadRequest` violation (`message.token`, `message.data`…).
    public var fieldViolations: [String]

    public init(status: Int, errorStatus: String, message: String, fcmErrorCode: String? = nil, fieldViolations: [String] = []) {
        self.status = status
        self.errorStatus = errorStatus
        self.message = message
        self.fcmErrorCode = fcmErrorCode
        self.fieldViolations = fieldViolations
    }

    /// 404 `UNREGISTERED`: the app instance is gone (dead token).
    public static let unregistered = FakeFCMError(status: 404, errorStatus: "NOT_FOUND", message: "Requested entity was not found.",
                                                  fcmErrorCode: "UNREGISTERED")
    /// 400 `INVALID_ARGUMENT` naming `message.token` (dead token).
    public static let invalidToken = FakeFCMError(
        status: 400, errorStatus: "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token",
        fcmErrorCode: "INVALID_ARGUMENT", fieldViolations: ["message.token"])
    /// 429 `QUOTA_EXCEEDED`: throttled.
    public static let quotaExceeded = FakeFCMError(status: 429, errorStatus: "RESOURCE_EXHAUSTED",
                                                   message: "Quota exceeded for the device.", fcmErrorCode: "QUOTA_EXCEEDED")
    /// 503 `UNAVAILABLE`: FCM is overloaded.
    public static let unavailable = FakeFCMError(status: 503, errorStatus: "UNAVAILABLE", message: "The service is currently unavailable.",
                                                 fcmErrorCode: "UNAVAILABLE")
    /// 500 `INTERNAL`.
    public static let internalError = FakeFCMError(status: 500, errorStatus: "INTERNAL", message: "Internal error encountered.",
                                                   fcmErrorCode: "INTERNAL")
    /// 403 `SENDER_ID_MISMATCH`: the token belongs to another Firebase project.
    public static let senderIdMismatch = FakeFCMError(status: 403, errorStatus: "PERMISSION_DENIED", message: "SenderId mismatch",
                                                      fcmErrorCode: "SENDER_ID_MISMATCH")
    /// 404 `NOT_FOUND` without `UNREGISTERED` (a project that does not exist).
    public static let notFound = FakeFCMError(status: 404, errorStatus: "NOT_FOUND", message: "Requested entity was not found.")
    /// 401 `UNAUTHENTICATED`: no or a stale access token.
    public static let unauthenticated = FakeFCMError(
        status: 401, errorStatus: "UNAUTHENTICATED",
        message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")

    /// The preset for each name the `--script` file accepts.
    public static let presets: [String: FakeFCMError] = [
        "unregistered": .unregistered, "invalid-token": .invalidToken, "quota-exceeded": .quotaExceeded,
        "unavailable": .unavailable, "internal": .internalError, "sender-id-mismatch": .senderIdMismatch,
        "not-found": .notFound, "unauthenticated": .unauthenticated,
    ]

    /// An `INVALID_ARGUMENT` about one field of the request.
    static func invalidArgument(_ message: String, field: String) -> FakeFCMError {
        FakeFCMError(status: 400, errorStatus: "INVALID_ARGUMENT", message: message, fcmErrorCode: "INVALID_ARGUMENT",
                     fieldViolations: [field])
    }

    /// The JSON body.
    public var body: [UInt8] {
        var details: [JSONValue] = []
        if let fcmErrorCode {
            details.append(.object(JSONObject([
                ("@type", "type.googleapis.com/google.firebase.fcm.v1.FcmError"), ("errorCode", .string(fcmErrorCode)),
            ])))
        }
        if !fieldViolations.isEmpty {
            details.append(.object(JSONObject([
                ("@type", "type.googleapis.com/google.rpc.BadRequest"),
                ("fieldViolations", .array(fieldViolations.map { .object(JSONObject([("field", .string($0)), ("description", .string(message))])) })),
            ])))
        }
        var error = JSONObject([("code", .integer(Int64(status))), ("message", .string(message)), ("status", .string(errorStatus))])
        if !details.isEmpty { error["details"] = .array(details) }
        return JSONValue.object(JSONObject([("error", .object(error))])).serializedBytes()
    }
}
