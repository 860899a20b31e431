import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders
@testable import PushgateRelay
import PushgateTesting
import Testing
import PushgateTestSupport

/// `POST /v1/push` as a hapi hub uses it: raw HTTP/1.1 written by hand on one keep-alive
/// connection, and 1 000 requests in parallel against the buckets.
@Suite(.hangLimit(.minutes(1))) struct HapiPushWireTests {
    /// The `ready` vector envelope of hapi-envelopes.json.
    static let readyEnvelope = "AAECAwQFBgcICQoLPCC0dKGc4CGvE/Lq1ZBYC+ykp12eCyoIGkvH5nIHdMBgc9qqyrNh8RvKXdeqtgoUzCoF/im/zLR28wgjOpDEzNweshOnvUNDJnbiL7/GLMQa/rASE0FpSo+Y/6gB0sShxRvIOvgJGpKK+MjRlFlu"

    /// What a hub's `fetch` writes: JSON body, its length, keep-alive, no authentication.
    static func hubRequest(_ json: String) -> [UInt8] {
        RawHTTPConnection.request("POST", "/v1/push", body: Array(json.utf8),
                              headers: ["Content-Type: application/json", "Accept: */*", "Connection: keep-alive", "User-Agent: node"])
    }

    @Test func aHubStyleRequestWrittenByHandGetsTheRightCodes() async throws {
        let harness = try await HapiPushHarness()
        let port = harness.relay.relay.port
        let token = TestToken.make()
        let dead = TestToken.make()
        harness.apns.script(token: dead, .unregistered)
        let bodies = [
            #"{"platform":"ios","token":"\#(token)","envelope":"\#(Self.readyEnvelope)","collapseId":"ready-s1","priority":10}"#,
            #"{"platform":"android","token":"fcm:APA91b-Token","envelope":"\#(Self.readyEnvelope)","priority":10}"#,
            #"{"platform":"ios","token":"\#(token)","envelope":"\#(Self.readyEnvelope)","collapseId":"ready-s1","priority":7}"#,
            #"{"platform":"ios","token":"\#(dead)","envelope":"\#(Self.readyEnvelope)","priority":10}"#,
        ]
        let responses = try await onOwnThread {
            let client = try RawHTTPConnection(port: port)
            return try bodies.map { body in
                client.sendUnlessClosed(Self.hubRequest(body))
                return try client.readResponse()
            }
        }
        #expect(responses.map(\.status) == [200, 200, 400, 410])
        #expect(responses.map(\.bodyText) == [#"{"ok":true}"#, #"{"ok":true}"#, #"{"ok":false,"code":"bad_request","message":"priority must be 5 or 10"}"#,
                                              #"{"ok":false,"code":"unregistered"}"#])
        #expect(responses.allSatisfy { $0.headers["content-type"] == "application/json" && !$0.closesConnection })

        let record = try #require(harness.relay.received(token).first)
        #expect(record.path == "/3/device/\(token)")
        #expect(record.payload == (try JSONValue.parse(
            #"{"aps":{"mutable-content":1,"alert":{"title":"HAPI","body":"New activity"},"sound":"default"},"hapi":{"v":1,"e":"\#(Self.readyEnvelope)"}}"#)))
        #expect(record.header("apns-push-type") == "alert")
        #expect(record.header("apns-priority") == "10")
        #expect(record.header("apns-expiration") == String(harness.clock.nowMilliseconds / 1_000 + 3_600), "E2E_APNS_TTL_SECONDS")
        #expect(record.header("apns-collapse-id") == "ready-s1")
        #expect(record.header("apns-topic") == RelayHarness.bundleId)
        #expect(harness.fcm?.sends.first?.message?["data"] == .object(JSONObject([("hapi_v", "1"), ("hapi_e", .string(Self.readyEnvelope))])))
        await harness.stop()
    }

    /// Posts `count` requests at once through 100 connections; the statuses in request order.
    static func parallel(_ count: Int, port: UInt16, body: @escaping @Sendable (Int) -> [UInt8],
                         headers: @escaping @Sendable (Int) -> [(String, String)]) async throws -> [Int] {
        var configuration = HTTP1Client.Configuration()
        configuration.maxConnections = 100
        let client = HTTP1Client(configuration: configuration)
        defer { client.shutdown() }
        let url = "http://127.0.0.1:\(port)/v1/push"
        return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<count {
                group.addTask {
                    let reply = try await client.post(url, headers: [("content-type", "application/json")] + headers(index), body: body(index))
                    return (index, reply.status)
                }
            }
            var statuses = [Int](repeating: 0, count: count)
            for try await (index, status) in group { statuses[index] = status }
            return statuses
        }
    }

    @Test func a1000RequestBurstFromOneAddressPasses300() async throws {
        let harness = try await HapiPushHarness(settings: ["MAX_IN_FLIGHT": "1000", "MAX_CONNECTIONS_PER_IP": "4096"], fcm: false)
        let tokens = (0..<1000).map { _ in TestToken.make() }
        let statuses = try await Self.parallel(1000, port: harness.relay.relay.port,
                                               body: { HapiPushHarness.body(token: tokens[$0]) }, headers: { _ in [] })
        #expect(statuses.filter { $0 == 200 }.count == 300)
        #expect(statuses.filter { $0 == 429 }.count == 700)
        #expect(harness.apns.counters.requests == 300)
        #expect(harness.relay.relay.service.metrics.requestCount(route: "hapi-push", status: 429) == 700)
        await harness.stop()
    }

    @Test func a1000RequestBurstToOneTokenFromManyAddressesPasses30() async throws {
        let harness = try await HapiPushHarness(settings: ["MAX_IN_FLIGHT": "1000", "TRUST_PROXY_HOPS": "1", "MAX_CONNECTIONS_PER_IP": "4096"])
        let statuses = try await Self.parallel(
            1000, port: harness.relay.relay.port,
            body: { _ in HapiPushHarness.body(platform: "android", token: "one-device", collapseId: nil) },
            headers: { [("x-forwarded-for", "198.51.\($0 / 256).\($0 % 256)")] })
        #expect(statuses.filter { $0 == 200 }.count == 30)
        #expect(statuses.filter { $0 == 429 }.count == 970)
        #expect(harness.fcm?.counters.sendRequests == 30)
        #expect(harness.fcm?.counters.tokenRequests == 1)
        await harness.stop()
    }
}
