import Foundation
import PushgateCore
import PushgateHTTP
import Testing
import PushgateTesting
import PushgateTestSupport

/// The fake FCM's answer sequences, `retry-after` and connection faults (the same as the fake
/// APNs', through ``FakeProvider``) over real loopback TLS + HTTP/2.
@Suite(.hangLimit(.minutes(1))) struct FakeFCMFaultTests {
    @Test func aSequenceAnswersInOrderThenRepeatsItsLast() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        harness.fake.script(token: "t", sequence: [
            FakeFCMScript(.unavailable, retryAfterSeconds: 7), FakeFCMScript(.unavailable), FakeFCMScript(nil),
        ])
        var answers: [(status: Int, retryAfter: String?)] = []
        for _ in 0..<4 {
            let response = try await harness.send(FakeFCMHarness.message(token: "t"), accessToken: accessToken)
            answers.append((response.status, response.headers.first(named: "retry-after")))
        }
        #expect(answers.map(\.status) == [503, 503, 200, 200])
        #expect(answers.map(\.retryAfter) == ["7", nil, nil, nil])
        #expect(harness.fake.sends.map(\.status) == [503, 503, 200, 200])
        #expect(harness.fake.sends.map(\.error) == ["UNAVAILABLE", "UNAVAILABLE", nil, nil])
    }

    @Test func aResetSendIsCountedAndRecordedWithItsMessage() async throws {
        let harness = try FakeFCMHarness()
        harness.fake.resetStreams(every: 2)
        let accessToken = try await harness.accessToken()
        let reset = await Result { try await harness.send(FakeFCMHarness.message(token: "t"), accessToken: accessToken) }
        #expect((reset.failure as? HTTP2ClientError)?.kind == .streamReset)
        #expect(try await harness.send(FakeFCMHarness.message(token: "t"), accessToken: accessToken).status == 200)
        let counters = harness.fake.counters
        #expect(counters.streamsReset == 1)
        #expect(counters.sendRequests == 2)
        #expect(counters.sendsByStatus == [200: 1])
        let record = try #require(harness.fake.sends.first)
        #expect(record.reset && record.status == 0 && record.error == nil)
        #expect(record.deviceToken == "t")
        #expect(record.message?["data"]?["hapi_e"] == "QUJD")
        #expect(record.recordLine().hasSuffix(#""status":null,"error":null,"reset":true}"#))
    }

    @Test func goAwayAndDropAfterStreamsApplyToTheFakeFCMToo() async throws {
        let harness = try FakeFCMHarness()
        harness.fake.goAway(afterStreams: 1)
        let accessToken = try await harness.accessToken()
        #expect(try await harness.send(FakeFCMHarness.message(), accessToken: accessToken).status == 200)
        #expect(harness.fake.counters.goAwaysSent == 2)
        #expect(harness.fake.counters.connectionsAccepted == 2)

        harness.fake.goAway(afterStreams: nil)
        harness.fake.dropConnections(afterStreams: 1)
        let lost = await Result { try await harness.send(FakeFCMHarness.message(), accessToken: accessToken) }
        #expect((lost.failure as? HTTP2ClientError)?.kind == .connectionLost)
        #expect(harness.fake.counters.connectionsDropped == 1)
    }
}
