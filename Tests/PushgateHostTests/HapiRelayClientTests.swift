import Foundation
@testable import PushgateCore
import PushgateProviders
@testable import PushgateHost
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 28 and 29: the host's relay client against a scripted relay on loopback.
@Suite(.hangLimit(.minutes(1))) struct HapiRelayClientTests {
    static let logs = Logger.MemorySink()
    static let logger = Logger(component: "test", minimumLevel: .debug, sink: logs)

    @Test func requestURLBodyAndHeaders() async throws {
        let relay = try HapiScriptedRelay()
        #expect(HapiRelayClient.pushURL(base: relay.url + "//") == relay.url + "/v1/push")
        let client = HapiRelayClient(baseURL: relay.url + "//", logger: Self.logger)
        #expect(await client.push(platform: .ios, token: "abcd", envelope: "ZW52", collapseId: "ready-s1") == .sent)
        #expect(await client.push(platform: .android, token: "fcm:Tok", envelope: "ZW52", collapseId: "ready-s1") == .sent)
        #expect(await client.push(platform: .ios, token: "abcd", envelope: "ZW52", collapseId: "") == .sent)
        let requests = relay.requests
        #expect(requests.map(\.path) == ["/v1/push", "/v1/push", "/v1/push"])
        #expect(requests[0].body == (try JSONValue.parse(#"{"platform":"ios","token":"abcd","envelope":"ZW52","collapseId":"ready-s1","priority":10}"#)))
        #expect(requests[1].body == (try JSONValue.parse(#"{"platform":"android","token":"fcm:Tok","envelope":"ZW52","priority":10}"#)))
        #expect(requests[2].body?["collapseId"] == nil, "an empty collapse id is left out")
        for request in requests {
            #expect(request.header("content-type") == "application/json")
            #expect(request.header("authorization") == nil)
        }
        relay.stop()
    }

    @Test func answersMapToOutcomes() async throws {
        let relay = try HapiScriptedRelay()
        let cases: [(String, HapiScriptedRelay.Answer, String)] = [
            ("ok", .json(200, #"{"ok":true}"#), "sent"),
            ("gone", .json(410, #"{"ok":false,"code":"unregistered"}"#), "dead"),
            ("gone-html", .html(410), "failed"),
            ("ok-html", .html(200), "failed"),
            ("ok-false", .json(200, #"{"ok":false}"#), "failed"),
            ("ok-string", .json(200, #"{"ok":"true"}"#), "failed"),
            ("gone-other", .json(410, #"{"ok":false,"code":"gone"}"#), "failed"),
            ("bad", .json(400, #"{"ok":false,"code":"bad_request"}"#), "failed"),
            ("big", .json(413, #"{"ok":false,"code":"too_large"}"#), "failed"),
            ("slow", .json(429, #"{"ok":false,"code":"rate_limited"}"#), "failed"),
            ("none", .json(501, #"{"ok":false,"code":"unsupported_platform"}"#), "failed"),
            ("up", .json(502, #"{"ok":false,"code":"upstream"}"#), "failed"),
        ]
        let client = HapiRelayClient(baseURL: relay.url, logger: Self.logger)
        for (token, answer, expected) in cases {
            relay.script(token, answer)
            #expect(await client.push(platform: .android, token: token, envelope: "ZW52", collapseId: nil).label == expected, "\(token)")
        }
        #expect(relay.requests.count == cases.count, "no retry")
        #expect(!Self.logs.lines.contains { $0.contains("Bad gateway") || $0.contains("unsupported_platform") })
        relay.stop()
    }

    @Test func timeoutAndNetworkErrorsAreFailed() async throws {
        #expect(HapiRelayClient.timeoutSeconds == 10)
        let relay = try HapiScriptedRelay()
        relay.script("held", .hang)
        let impatient = HapiRelayClient(baseURL: relay.url, timeoutSeconds: 0.3, logger: Self.logger)
        let started = ContinuousClock.now
        #expect(await impatient.push(platform: .ios, token: "held", envelope: "ZW52", collapseId: nil).label == "failed")
        #expect(started.duration(to: .now) >= .milliseconds(290), "failed by the timeout, not by a refusal")
        #expect(relay.requests.count == 1, "no retry after the timeout")
        relay.stop()
        let closed = HapiRelayClient(baseURL: relay.url, logger: Self.logger)
        #expect(await closed.push(platform: .ios, token: "x", envelope: "ZW52", collapseId: nil).label == "failed")
    }
}
