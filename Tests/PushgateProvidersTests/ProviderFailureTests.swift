@testable import PushgateHTTP
import PushgateProviders
import Testing

@Suite("Provider failures: whether sending again may help")
struct ProviderFailureTests {
    @Test("answers: 500 and 503 are unavailable, 429 a throttle, both with their Retry-After; the rest rejected", arguments: [
        (500, nil, .unavailable(retryAfterSeconds: nil)), (503, "7", .unavailable(retryAfterSeconds: 7)),
        (429, "2", .throttled(retryAfterSeconds: 2)),
        (429, nil, .throttled(retryAfterSeconds: nil)), (429, "Wed, 21 Oct 2026 07:28:00 GMT", .throttled(retryAfterSeconds: nil)),
        (429, "-1", .throttled(retryAfterSeconds: nil)), (429, "86401", .throttled(retryAfterSeconds: nil)),
        (400, nil, .rejected), (403, nil, .rejected), (502, nil, .rejected),
    ] as [(Int, String?, ProviderFailure)])
    func answers(status: Int, retryAfter: String?, expected: ProviderFailure) {
        let headers = retryAfter.map { [HTTP2Header("retry-after", $0)] } ?? []
        #expect(ProviderFailure.of(status: status, headers: headers) == expected)
    }

    @Test("no answer: before the write it was not sent; after it, unanswered; a shutdown or cancellation is final")
    func transport() {
        for kind: HTTP2ClientError.Kind in [.refused, .connectFailed, .timeout, .queueFull, .connectionLost, .protocolError] {
            #expect(ProviderFailure.of(HTTP2ClientError(kind, detail: "x")) == .notSent, "\(kind)")
        }
        #expect(ProviderFailure.of(HTTP2ClientError(.timeout, detail: "x").afterWrite()) == .unanswered)
        #expect(ProviderFailure.of(HTTP2ClientError(.connectionLost, detail: "x").afterWrite()) == .unanswered)
        #expect(ProviderFailure.of(HTTP2ClientError(.streamReset, detail: "x").afterWrite()) == .unanswered)
        #expect(ProviderFailure.of(HTTP2ClientError(.shutdown, detail: "x")) == .rejected)
        #expect(ProviderFailure.of(HTTP2ClientError(.cancelled, detail: "x")) == .rejected)
        #expect(ProviderFailure.of(HTTP2ClientError(.cancelled, detail: "x").afterWrite()) == .rejected)
        #expect(ProviderFailure.of(HTTP2ClientError(.shutdown, detail: "x").afterWrite()) == .rejected)
        #expect(ProviderFailure.of(HTTP2ClientError(.invalidRequest, detail: "x")) == .rejected)
    }
}
