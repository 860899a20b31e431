import Foundation
import PushgateCore
import PushgateHTTP
import Testing
import PushgateTesting
import PushgateTestSupport

/// The fake APNs' answer sequences, `retry-after` and stream resets over real loopback TLS + HTTP/2.
@Suite(.hangLimit(.minutes(1))) struct FakeAPNsFaultTests {
    @Test func aSequenceAnswersInOrderThenRepeatsItsLast() async throws {
        let harness = try LoopbackHarness()
        let token = LoopbackHarness.token(5)
        harness.fake.script(token: token, sequence: [
            ScriptedResponse(status: 503, reason: .serviceUnavailable, retryAfterSeconds: 5),
            ScriptedResponse(status: 503, reason: .serviceUnavailable),
            ScriptedResponse(status: 200),
        ])
        var answers: [(status: Int, retryAfter: String?)] = []
        for _ in 0..<5 {
            let response = try await harness.send(harness.request(token: token))
            answers.append((response.status, response.headers.first(named: "retry-after")))
        }
        #expect(answers.map(\.status) == [503, 503, 200, 200, 200])
        #expect(answers.map(\.retryAfter) == ["5", nil, nil, nil, nil])
        #expect(harness.fake.requests.map(\.status) == [503, 503, 200, 200, 200])
        #expect(try await harness.send(harness.request(token: LoopbackHarness.token(6))).status == 200, "other tokens are not scripted")

        // Only valid requests take a step; scripting again starts the sequence over.
        #expect(try await harness.send(harness.request(token: token) { $0.set("apns-topic", nil) }).status == 400)
        harness.fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests), ScriptedResponse(status: 200)])
        #expect(try await harness.send(harness.request(token: token) { $0.set("apns-topic", nil) }).status == 400)
        #expect(try await harness.send(harness.request(token: token)).status == 429)
        #expect(try await harness.send(harness.request(token: token)).status == 200)
        harness.fake.script(token: token, sequence: [])
        #expect(try await harness.send(harness.request(token: token)).status == 200)
    }

    /// Every second request the fake receives is reset, counted over both clients' connections;
    /// a reset takes no step of its token's sequence.
    @Test func resetStreamsCountsEveryRequestOfTheServer() async throws {
        let harness = try LoopbackHarness()
        let other = try HTTP2ClientPool(configuration: HTTP2ClientConfiguration(extraCAFile: harness.caFile.path),
                                        logger: Logger(component: "test", minimumLevel: .error))
        let token = LoopbackHarness.token(3)
        harness.fake.script(token: token, sequence: [ScriptedResponse(status: 503, reason: .serviceUnavailable), ScriptedResponse(status: 200)])
        harness.fake.resetStreams(every: 2)
        var outcomes: [String] = []
        for pool in [harness.pool, other, harness.pool, other] {
            do {
                outcomes.append(String(try await pool.send(harness.request(token: token)).status))
            } catch let error as HTTP2ClientError {
                #expect(error.kind == .streamReset)
                #expect(error.detail.contains("HTTP/2 error 2"), "INTERNAL_ERROR")
                outcomes.append("reset")
            }
        }
        await other.shutdown()
        #expect(outcomes == ["503", "reset", "200", "reset"])
        let counters = harness.fake.counters
        #expect(counters.connectionsAccepted == 2)
        #expect(counters.streamsReset == 2)
        #expect(counters.requests == 4)
        #expect(counters.byStatus == [503: 1, 200: 1])
        let records = harness.fake.requests
        #expect(records.map(\.reset) == [false, true, false, true])
        #expect(records.map(\.status) == [503, 0, 200, 0])
        #expect(records.allSatisfy { $0.deviceToken == token && $0.payload != nil })
        #expect(records[1].recordLine().hasSuffix(#""status":null,"reason":null,"reset":true}"#))
        #expect(!records[0].recordLine().contains("reset"))

        harness.fake.resetStreams(every: nil)
        #expect(try await harness.send(harness.request(token: token)).status == 200)
        #expect(harness.fake.counters.streamsReset == 2)
    }

    @Test func dropConnectionsNowReportsHowManyItClosed() async throws {
        let harness = try LoopbackHarness()
        #expect(try await harness.send(harness.request()).status == 200)
        let dropped = await withCheckedContinuation { continuation in
            harness.fake.dropConnectionsNow { continuation.resume(returning: $0) }
        }
        #expect(dropped == 1)
        #expect(harness.fake.counters.connectionsDropped == 1)
        // A new client: the first one may not have seen its connection close yet.
        let next = try HTTP2ClientPool(configuration: HTTP2ClientConfiguration(extraCAFile: harness.caFile.path),
                                       logger: Logger(component: "test", minimumLevel: .error))
        #expect(try await next.send(harness.request()).status == 200, "the fake keeps listening")
        await next.shutdown()
    }
}
