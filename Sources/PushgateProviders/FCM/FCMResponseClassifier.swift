import PushgateCore
import PushgateHTTP

/// Reads an FCM HTTP v1 answer by the dead-token rules shared by host and relay.
///
/// - Important: protocol/hapi-push.md §8 "Dead-token rules" — dead only for (A) a 404 whose FcmError
///   `errorCode` or `error.status` is `UNREGISTERED`, or (B) a 400 `INVALID_ARGUMENT` that names
///   the token (every field violation is `message.token`; or none, FcmError `INVALID_ARGUMENT`
///   and the "not a valid FCM registration token" message). Everything else is failed; 429 is a throttle.
enum FCMResponseClassifier {
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// The parts of `{"error":{"code","status","message","details":[…]}}` the rules read.
    struct ErrorBody: Equatable {
        var status: String?
        var message: String?
        var fcmErrorCodes: [String] = []
        var violatedFields: [String] = []

        init?(_ body: [UInt8]) {
            guard let error = (try? JSONValue.parse(body))?["error"]?.objectValue else { return nil }
            status = error["status"]?.stringValue
            message = error["message"]?.stringValue
            for detail in error["details"]?.arrayValue ?? [] {
                switch detail["@type"]?.stringValue {
                case FCMResponseClassifier.fcmErrorType?:
                    if let code = detail["errorCode"]?.stringValue { fcmErrorCodes.append(code) }
                case FCMResponseClassifier.badRequestType?:
                    for violation in detail["fieldViolations"]?.arrayValue ?? [] {
                        violatedFields.append(violation["field"]?.stringValue ?? "")
                    }
                default:
                    continue
                }
            }
        }
    }

    static func classify(status: Int, headers: [HTTP2Header] = [], body: [UInt8]) -> HapiPushOutcome {
        if (200..<300).contains(status) { return .sent }
        let error = ErrorBody(body)
        let reason = label(error?.fcmErrorCodes.first ?? error?.status) ?? "HTTP \(status)"
        if let error, isDead(status: status, error) { return .dead(reason: reason) }
        return .failed(reason: reason, failure: .of(status: status, headers: headers))
    }

    private static func isDead(status: Int, _ error: ErrorBody) -> Bool {
        switch status {
        case 404:
            return error.fcmErrorCodes.contains("UNREGISTERED") || error.status == "UNREGISTERED"
        case 400 where error.status == "INVALID_ARGUMENT":
            if !error.violatedFields.isEmpty { return error.violatedFields.allSatisfy { $0 == "message.token" } }
            return error.fcmErrorCodes.contains("INVALID_ARGUMENT") && namesInvalidToken(error.message)
        default:
            return false
        }
    }

    /// "The registration token is not a valid FCM registration token", any letter case, optional final period.
    private static func namesInvalidToken(_ message: String?) -> Bool {
        guard var text = message?.lowercased() else { return false }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "the registration token is not a valid fcm registration token"
    }

    /// Remote codes become log and metric labels: upper-case words only.
    private static func label(_ code: String?) -> String? {
        guard let code, !code.isEmpty, code.utf8.count <= 64,
              code.utf8.allSatisfy({ (0x41...0x5A).contains($0) || $0 == 0x5F }) else { return nil }
        return code
    }
}
