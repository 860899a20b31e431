@testable import PushgateProviders
import Testing

/// protocol/hapi-push.md §11 line 37 (fcm-outcomes), on the classifier alone; the loopback tests repeat
/// the main rows against the fake FCM.
@Suite("FCM answers to outcomes")
struct FCMResponseClassifierTests {
    static let fcmError = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequest = "type.googleapis.com/google.rpc.BadRequest"

    private static func body(status: String, message: String = "m", errorCode: String? = nil, fields: [String]? = nil) -> [UInt8] {
        var details: [String] = []
        if let errorCode { details.append(#"{"@type":"\#(fcmError)","errorCode":"\#(errorCode)"}"#) }
        if let fields {
            let violations = fields.map { #"{"field":"\#($0)","description":"d"}"# }.joined(separator: ",")
            details.append(#"{"@type":"\#(badRequest)","fieldViolations":[\#(violations)]}"#)
        }
        return Array(#"{"error":{"code":1,"message":"\#(message)","status":"\#(status)","details":[\#(details.joined(separator: ","))]}}"#.utf8)
    }

    @Test("dead only for rules A and B")
    func deadRules() {
        #expect(FCMResponseClassifier.classify(status: 200, body: Array(#"{"name":"projects/p/messages/1"}"#.utf8)) == .sent)
        #expect(FCMResponseClassifier.classify(status: 404, body: Self.body(status: "NOT_FOUND", errorCode: "UNREGISTERED"))
                == .dead(reason: "UNREGISTERED"))
        #expect(FCMResponseClassifier.classify(status: 404, body: Self.body(status: "UNREGISTERED")) == .dead(reason: "UNREGISTERED"))
        #expect(FCMResponseClassifier.classify(status: 400, body: Self.body(status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
                                                                         fields: ["message.token"])) == .dead(reason: "INVALID_ARGUMENT"))
        #expect(FCMResponseClassifier.classify(status: 400, body: Self.body(status: "INVALID_ARGUMENT", fields: ["message.token", "message.token"]))
                == .dead(reason: "INVALID_ARGUMENT"))
        for message in ["The registration token is not a valid FCM registration token",
                        "the REGISTRATION token is not a valid fcm registration token."] {
            #expect(FCMResponseClassifier.classify(status: 400, body: Self.body(status: "INVALID_ARGUMENT", message: message,
                                                                             errorCode: "INVALID_ARGUMENT")) == .dead(reason: "INVALID_ARGUMENT"))
        }
    }

    @Test("everything else keeps the row")
    func failedRows() {
        let rows: [(Int, [UInt8], HapiPushOutcome)] = [
            (404, Self.body(status: "NOT_FOUND"), .failed(reason: "NOT_FOUND")),
            (400, Self.body(status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", fields: ["message.data"]), .failed(reason: "INVALID_ARGUMENT")),
            (400, Self.body(status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", fields: ["message.token", "message.data"]), .failed(reason: "INVALID_ARGUMENT")),
            (400, Self.body(status: "INVALID_ARGUMENT", message: "Android message is too big", errorCode: "INVALID_ARGUMENT"), .failed(reason: "INVALID_ARGUMENT")),
            (400, Self.body(status: "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token!!",
                            errorCode: "INVALID_ARGUMENT"), .failed(reason: "INVALID_ARGUMENT")),
            (400, Self.body(status: "FAILED_PRECONDITION", fields: ["message.token"]), .failed(reason: "FAILED_PRECONDITION")),
            (403, Self.body(status: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH"), .failed(reason: "SENDER_ID_MISMATCH")),
            (401, Self.body(status: "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR"), .failed(reason: "THIRD_PARTY_AUTH_ERROR")),
            (429, Self.body(status: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED"), .failed(reason: "QUOTA_EXCEEDED", failure: .throttled(retryAfterSeconds: nil))),
            (503, Self.body(status: "UNAVAILABLE", errorCode: "UNAVAILABLE"), .failed(reason: "UNAVAILABLE", failure: .unavailable(retryAfterSeconds: nil))),
            (410, Self.body(status: "UNREGISTERED"), .failed(reason: "UNREGISTERED")),
            (404, Array("<html>gone</html>".utf8), .failed(reason: "HTTP 404")),
            (500, Array(#"{"error":{"status":"bad status with spaces"}}"#.utf8), .failed(reason: "HTTP 500", failure: .unavailable(retryAfterSeconds: nil))),
        ]
        for (status, body, expected) in rows {
            #expect(FCMResponseClassifier.classify(status: status, body: body) == expected, "\(status) \(String(decoding: body, as: UTF8.self))")
        }
    }

    @Test("expires_in: positive finite, capped at 3600, else 3600")
    func accessTokenLifetime() throws {
        // Milliseconds of life the answer gives, from an exchange started at 1 000 000.
        func expiry(_ json: String) -> Int64? {
            OAuthAccessToken(response: Array(json.utf8), issuedAtMilliseconds: 1_000_000)
                .map { $0.expiresAtMilliseconds - 1_000_000 }
        }
        #expect(expiry(#"{"access_token":"a","expires_in":3599}"#) == Int64(3_599_000))
        #expect(expiry(#"{"access_token":"a","expires_in":120.5}"#) == Int64(120_500))
        #expect(expiry(#"{"access_token":"a","expires_in":7200}"#) == Int64(3_600_000))
        for bad in ["0", "-5", "\"3599\"", "null"] {
            #expect(expiry(#"{"access_token":"a","expires_in":\#(bad)}"#) == Int64(3_600_000))
        }
        #expect(expiry(#"{"access_token":"a"}"#) == Int64(3_600_000))
        for bad in [#"{"access_token":""}"#, #"{"access_token":5}"#, #"{"token":"a"}"#, "<html>", ""] { #expect(expiry(bad) == nil) }
        let body = String(decoding: OAuthAccessToken.requestBody(assertion: "a.b-_.c"), as: UTF8.self)
        #expect(body == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b-_.c")
    }
}
