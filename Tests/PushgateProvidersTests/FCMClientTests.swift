import Foundation
@testable import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 35–37 against the fake FCM over loopback.
@Suite("FCM client against the fake FCM", .hangLimit(.minutes(1)))
struct FCMClientTests {
    @Test("oauth-cache: reused while more than 60 s remain, exchanged again at 60 s")
    func tokenReuseAndRefresh() async throws {
        let fixture = try FCMFakeFixture()
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .sent)
        #expect(fixture.fake.counters.tokenRequests == 1)
        // The fake grants 3599 s: at 3538.999 s 60.001 s remain, at 3539 s exactly 60.
        fixture.clock.advance(milliseconds: 3_538_999)
        #expect(await fixture.client.send(FCMFakeFixture.relay("b")) == .sent)
        #expect(fixture.fake.counters.tokenRequests == 1)
        fixture.clock.advance(milliseconds: 1)
        #expect(await fixture.client.send(FCMFakeFixture.relay("c")) == .sent)
        #expect(fixture.fake.counters.tokenRequests == 2)
        let bearers = fixture.fake.sends.compactMap { $0.header("authorization") }
        #expect(bearers.count == 3 && bearers[0] == bearers[1] && bearers[1] != bearers[2])
        await fixture.client.shutdown()
    }

    @Test("oauth-cache: 10 concurrent sends share one exchange")
    func concurrentSendsShareOneExchange() async throws {
        let fixture = try FCMFakeFixture()
        let outcomes = await fixture.sendAll((0..<10).map { FCMFakeFixture.relay("t\($0)") })
        #expect(outcomes == Array(repeating: .sent, count: 10))
        #expect(fixture.fake.counters.tokenRequests == 1)
        #expect(fixture.fake.counters.sendRequests == 10)
        await fixture.client.shutdown()
    }

    @Test("oauth-cache: a 401 clears the cache; a failed exchange caches nothing and sends nothing")
    func unauthorizedAndFailedExchanges() async throws {
        let fixture = try FCMFakeFixture()
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .sent)
        fixture.fake.revokeAccessTokens()
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .failed(reason: "UNAUTHENTICATED"))
        #expect(fixture.fake.counters.tokenRequests == 1)
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .sent)
        #expect(fixture.fake.counters.tokenRequests == 2)

        fixture.fake.revokeAccessTokens()
        fixture.fake.failTokenExchanges(status: 503)
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .failed(reason: "UNAUTHENTICATED"))
        let sendsBefore = fixture.fake.counters.sendRequests
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .failed(reason: "oauth HTTP 503", failure: .unavailable(retryAfterSeconds: nil)))
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .failed(reason: "oauth HTTP 503", failure: .unavailable(retryAfterSeconds: nil)))
        #expect(fixture.fake.counters.sendRequests == sendsBefore)
        fixture.fake.failTokenExchanges(status: nil)
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .sent)
        #expect(fixture.fake.counters.tokenRequests == 5)
        await fixture.client.shutdown()
        #expect(!fixture.logs.lines.contains { $0.contains("ya29.") })
    }

    @Test("the exchange is a form POST to the token URI; sends carry the bearer to the project's path")
    func exchangeCarriesTheVectorAssertion() async throws {
        let fixture = try FCMFakeFixture()
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .sent)
        let exchange = try #require(fixture.fake.requests.first)
        #expect(exchange.kind == .tokenExchange)
        #expect(exchange.path == "/token")
        #expect(exchange.header("content-type") == "application/x-www-form-urlencoded")
        #expect(exchange.status == 200)
        let send = try #require(fixture.fake.sends.first)
        #expect(send.path == "/v1/projects/pushgate-test/messages:send")
        #expect(send.header("content-type") == "application/json")
        #expect(send.header("authorization")?.hasPrefix("Bearer ya29.") == true)
        await fixture.client.shutdown()
    }

    @Test("fcm-messages: the fake accepts direct, wear and relay messages exactly as built")
    func messagesOnTheWire() async throws {
        let fixture = try FCMFakeFixture()
        let payload = HapiPayload(type: .ready, sessionId: "s1", sessionName: "Demo", url: "/sessions/s1", title: "Claude - Demo",
                                  body: "S\n-> A", severity: .info, notifySummary: #"{"version":1,"summary":"S","action":"A"}"#)
        let messages = [FCMMessage.direct(token: "phone", payload: payload, ttlSeconds: 3600), FCMMessage.direct(token: "watch", payload: payload, wear: true, ttlSeconds: 3600),
                        FCMMessage.relay(token: "relay", envelope: "QUJD+/==", priority: 5, ttlSeconds: 3600)]
        #expect(await fixture.sendAll(messages) == [.sent, .sent, .sent])
        for message in messages {
            let record = try #require(fixture.fake.sends.first { $0.deviceToken == message.token })
            #expect(record.message == message.message)
        }
        await fixture.client.shutdown()
    }

    @Test("fcm-outcomes: UNREGISTERED and a token violation are dead; the rest keep the row")
    func outcomes() async throws {
        let fixture = try FCMFakeFixture()
        let table: [(FakeFCMError?, HapiPushOutcome)] = [
            (nil, .sent),
            (.unregistered, .dead(reason: "UNREGISTERED")),
            (.invalidToken, .dead(reason: "INVALID_ARGUMENT")),
            (.notFound, .failed(reason: "NOT_FOUND")),
            (.senderIdMismatch, .failed(reason: "SENDER_ID_MISMATCH")),
            (.quotaExceeded, .failed(reason: "QUOTA_EXCEEDED", failure: .throttled(retryAfterSeconds: nil))),
            (.unavailable, .failed(reason: "UNAVAILABLE", failure: .unavailable(retryAfterSeconds: nil))),
            (.internalError, .failed(reason: "INTERNAL", failure: .unavailable(retryAfterSeconds: nil))),
        ]
        for (index, row) in table.enumerated() { fixture.fake.script(token: "t\(index)", row.0.map { FakeFCMScript($0) }) }
        #expect(await fixture.sendAll(table.indices.map { FCMFakeFixture.relay("t\($0)") }) == table.map(\.1))
        // Data over 4096 bytes: a 400 on message.data, which does not name the token.
        let payload = HapiPayload(type: .ready, sessionId: "s1", title: "t", body: String(repeating: "b", count: 4100))
        #expect(await fixture.client.send(.direct(token: "big", payload: payload, ttlSeconds: 3600)) == .failed(reason: "INVALID_ARGUMENT"))
        await fixture.client.shutdown()
        #expect(fixture.logs.lines.contains { $0.contains("dead") && $0.contains("reason=UNREGISTERED") })
        #expect(!fixture.logs.lines.contains { $0.contains("token=t1 ") || $0.hasSuffix("token=t1") })
    }

    @Test("fcm-outcomes: a project the fake does not serve is a 404 without UNREGISTERED")
    func projectMismatch() async throws {
        let account = try FCMFakeFixture.account { $0["project_id"] = "someone-elses-project" }
        let fixture = try FCMFakeFixture(clientAccount: account)
        #expect(await fixture.client.send(FCMFakeFixture.relay("a")) == .failed(reason: "NOT_FOUND"))
        #expect(fixture.fake.sends.first?.path == "/v1/projects/someone-elses-project/messages:send")
        await fixture.client.shutdown()
    }
}
