import PushgateHTTP
@testable import PushgateProviders
import Testing

@Suite("APNs answers to outcomes")
struct APNsResponseClassifierTests {
    private static func response(_ status: Int, _ reason: String?) -> HTTP2Response {
        HTTP2Response(status: status, headers: [], body: reason.map { Array(#"{"reason":"\#($0)"}"#.utf8) } ?? [])
    }

    private typealias Case = (status: Int, reason: String?, expected: APNsResponseClassifier.Verdict)

    private static func transient(_ reason: String, _ failure: ProviderFailure) -> APNsResponseClassifier.Verdict {
        .outcome(.transient(reason: reason, failure: failure))
    }

    private static let cases: [Case] = [
        (200, nil, .outcome(.delivered)),
        (410, "Unregistered", .outcome(.dead(reason: "Unregistered"))),
        (410, nil, .outcome(.dead(reason: "Unregistered"))),
        (400, "BadDeviceToken", .outcome(.dead(reason: "BadDeviceToken"))),
        (400, "Unregistered", .outcome(.dead(reason: "Unregistered"))),
        (400, "DeviceTokenNotForTopic", .outcome(.dead(reason: "DeviceTokenNotForTopic"))),
        (400, "BadTopic", Self.transient("BadTopic", .rejected)),
        (400, "PayloadEmpty", Self.transient("PayloadEmpty", .rejected)),
        (403, "InvalidProviderToken", Self.transient("InvalidProviderToken", .rejected)),
        (403, "ExpiredProviderToken", .providerTokenExpired),
        (413, "PayloadTooLarge", Self.transient("PayloadTooLarge", .rejected)),
        (429, "TooManyRequests", Self.transient("TooManyRequests", .throttled(retryAfterSeconds: nil))),
        (500, "InternalServerError", Self.transient("InternalServerError", .unavailable(retryAfterSeconds: nil))),
        (503, "ServiceUnavailable", Self.transient("ServiceUnavailable", .unavailable(retryAfterSeconds: nil))),
        (502, nil, Self.transient("HTTP 502", .rejected)),
    ]

    @Test("status and reason decide the outcome", arguments: cases)
    func classify(status: Int, reason: String?, expected: APNsResponseClassifier.Verdict) {
        #expect(APNsResponseClassifier.classify(Self.response(status, reason)) == expected)
    }

    @Test("bodies that are not APNs JSON give no reason", arguments: [
        "", "not json", #"{"reason":5}"#, #"{"reason":""}"#, #"["reason"]"#, #"{"reason":"has space"}"#,
    ])
    func malformedBodies(body: String) {
        #expect(APNsResponseClassifier.reason(in: Array(body.utf8)) == nil)
        #expect(APNsResponseClassifier.classify(HTTP2Response(status: 500, headers: [], body: Array(body.utf8)))
            == .outcome(.transient(reason: "HTTP 500", failure: .unavailable(retryAfterSeconds: nil))))
    }

    @Test("transport failures are transient, named by their kind")
    func transportFailures() {
        #expect(APNsResponseClassifier.classify(HTTP2ClientError(.timeout, detail: "x")) == .transient(reason: "timeout", failure: .notSent))
        #expect(APNsResponseClassifier.classify(HTTP2ClientError(.connectionLost, detail: "x")) == .transient(reason: "connection lost", failure: .notSent))
    }
}
