import PushgateHTTP
@testable import PushgateProviders
import Testing

@Suite("APNs answers to outcomes")
struct APNsResponseClassifierTests {
    private static func response(_ status: Int, _ reason: String?) -> HTTP2Response {
        HTTP2Response(status: status, headers: [], body: reason.map { Array(#"{"reason":"\#($0)"}"#.utf8) } ?? [])
    }

    @Test("status and reason decide the outcome", arguments: [
        (200, nil, .outcome(.delivered)),
        (410, "Unregistered", .outcome(.dead(reason: "Unregistered"))),
        (410, nil, .outcome(.dead(reason: "Unregistered"))),
        (400, "BadDeviceToken", .outcome(.dead(reason: "BadDeviceToken"))),
        (400, "Unregistered", .outcome(.dead(reason: "Unregistered"))),
        (400, "DeviceTokenNotForTopic", .outcome(.dead(reason: "DeviceTokenNotForTopic"))),
        (400, "BadTopic", .outcome(.transient(reason: "BadTopic", failure: .rejected))),
        (400, "PayloadEmpty", .outcome(.transient(reason: "PayloadEmpty", failure: .rejected))),
        (403, "InvalidProviderToken", .outcome(.transient(reason: "InvalidProviderToken", failure: .rejected))),
        (403, "ExpiredProviderToken", .providerTokenExpired),
        (413, "PayloadTooLarge", .outcome(.transient(reason: "PayloadTooLarge", failure: .rejected))),
        (429, "TooManyRequests", .outcome(.transient(reason: "TooManyRequests", failure: .throttled(retryAfterSeconds: nil)))),
        (500, "InternalServerError", .outcome(.transient(reason: "InternalServerError", failure: .unavailable))),
        (503, "ServiceUnavailable", .outcome(.transient(reason: "ServiceUnavailable", failure: .unavailable))),
        (502, nil, .outcome(.transient(reason: "HTTP 502", failure: .rejected))),
    ] as [(Int, String?, APNsResponseClassifier.Verdict)])
    func classify(status: Int, reason: String?, expected: APNsResponseClassifier.Verdict) {
        #expect(APNsResponseClassifier.classify(Self.response(status, reason)) == expected)
    }

    @Test("bodies that are not APNs JSON give no reason", arguments: [
        "", "not json", #"{"reason":5}"#, #"{"reason":""}"#, #"["reason"]"#, #"{"reason":"has space"}"#,
    ])
    func malformedBodies(body: String) {
        #expect(APNsResponseClassifier.reason(in: Array(body.utf8)) == nil)
        #expect(APNsResponseClassifier.classify(HTTP2Response(status: 500, headers: [], body: Array(body.utf8)))
            == .outcome(.transient(reason: "HTTP 500", failure: .unavailable)))
    }

    @Test("transport failures are transient, named by their kind")
    func transportFailures() {
        #expect(APNsResponseClassifier.classify(HTTP2ClientError(.timeout, detail: "x")) == .transient(reason: "timeout", failure: .notSent))
        #expect(APNsResponseClassifier.classify(HTTP2ClientError(.connectionLost, detail: "x")) == .transient(reason: "connection lost", failure: .notSent))
    }
}
