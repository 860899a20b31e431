import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// protocol/signed-relay.md §10 lines 11, 12, 22 and 26.
@Suite(.hangLimit(.minutes(1))) struct ValidationConformanceTests {
    /// Posts `fields` as a signed send whose signature is valid, so only the schema can fail it.
    static func send(_ harness: RelayHarness, key: P256PrivateKey, mutate: (inout JSONObject) -> Void) async throws -> (Int, String) {
        var object = try JSONValue.parse(try RelayRequestSigner(key: key).send(
            tokens: [TestToken.make()], title: "t", ts: harness.clock.nowMilliseconds)).objectValue!
        mutate(&object)
        let reply = try await harness.request("POST", "/v1/push/send", body: JSONValue.object(object).serializedBytes())
        return (reply.status, String(decoding: reply.body, as: UTF8.self))
    }

    /// Without `ANDROID_FCM_SERVICE_ACCOUNT_PATH` an `android` register is 501 naming the setting;
    /// a Live Activity route refuses `android` with 400 whatever the relay has.
    @Test func androidIs501WithoutAnAccountAnd400OnTheLiveActivityRoutes() async throws {
        let harness = try await RelayHarness()
        var object = try JSONValue.parse(try RelayRequestSigner(key: P256PrivateKey()).registerToken(
            TestToken.make(), ts: harness.clock.nowMilliseconds)).objectValue!
        object["platform"] = "android"
        let register = try await harness.request("POST", "/v1/push/register-token", body: JSONValue.object(object).serializedBytes())
        #expect(register.status == 501)
        #expect(String(decoding: register.body, as: UTF8.self)
            == #"{"error":"unsupported_platform","setting":"PUSHGATE_RELAY_ANDROID_FCM_SERVICE_ACCOUNT_PATH"}"#)
        let liveActivity = try await harness.request("POST", "/v1/push/register-live-activity-token",
                                                     body: JSONValue.object(object).serializedBytes())
        #expect(liveActivity.status == 400 && String(decoding: liveActivity.body, as: UTF8.self) == #"{"error":"unsupported_platform"}"#)
        await harness.stop()
    }

    @Test func sendSchemaViolationsAre400() async throws {
        let harness = try await RelayHarness(settings: ["SEND_LIMIT_PER_MINUTE": "1000"])
        let key = P256PrivateKey()
        let mutations: [(String, (inout JSONObject) -> Void)] = [
            ("101 tokens", { $0["tokens"] = .array((0..<101).map { _ in .string(TestToken.make()) }) }),
            ("31-char token", { $0["tokens"] = [.string(String(TestToken.make().prefix(31)))] }),
            ("token with a slash", { $0["tokens"] = [.string(TestToken.make() + "/")] }),
            ("300-byte title", { $0["title"] = .string(String(repeating: "é", count: 150)) }),
            ("nested data", { $0["data"] = ["a": ["b": "c"]] }),
            ("data over 2048 bytes", { $0["data"] = .object(JSONObject((0..<9).map { ("k\($0)", .string(String(repeating: "v", count: 250))) })) }),
            ("data.aps", { $0["data"] = ["aps": "x"] }),
            ("data.from (FCM reserves it)", { $0["data"] = ["from": "x"] }),
            ("data.google.* (FCM reserves it)", { $0["data"] = ["google.c.a": "x"] }),
            ("data.google. and a combining mark (reserved by its bytes)", { $0["data"] = ["google.\u{301}a": "x"] }),
            ("badge -1", { $0["badge"] = -1 }),
            ("empty title", { $0["title"] = "" }),
            ("bad env", { $0["env"] = "staging" }),
            ("not JSON", { $0 = JSONObject() }),
        ]
        for (name, mutate) in mutations {
            let (status, body) = try await Self.send(harness, key: key, mutate: mutate)
            #expect(status == 400 && body == #"{"error":"invalid_request"}"#, "\(name)")
        }
        let raw = try await harness.request("POST", "/v1/push/send", body: Array("{not json".utf8))
        #expect(raw.status == 400)
        #expect(harness.fake.requests.isEmpty)
        await harness.stop()
    }

    /// `send` takes 64 KiB (100 FCM tokens); the other signed routes 16 KiB.
    @Test func bodyOverTheRouteCapIs413ByLengthOrChunked() async throws {
        let harness = try await RelayHarness()
        let port = harness.relay.port
        for (path, cap) in [("/v1/push/send", 64 * 1024), ("/v1/push/register-token", 16 * 1024)] {
            let declared = try await onOwnThread { try RawHTTPConnection.postHeadOnly(port: port, path: path, length: cap + 1) }
            #expect(declared.status == 413 && declared.bodyText == #"{"error":"payload_too_large"}"#, "\(path)")
            let chunks = Array(repeating: [UInt8](repeating: 0x20, count: 4096), count: cap / 4096) + [[0x20]]
            let chunked = try await onOwnThread { try ChunkedUpload.post(port: port, path: path, chunks: chunks) }
            #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(path)")
        }
        await harness.stop()
    }

    @Test func liveActivityValidation() async throws {
        let harness = try await RelayHarness(settings: ["SEND_LIMIT_PER_MINUTE": "1000"])
        let key = P256PrivateKey()
        let now = harness.clock.nowSeconds
        func post(_ mutate: (inout JSONObject) -> Void) async throws -> Int {
            let push = try LiveActivityPush(tokens: [TestToken.make()], event: .update, contentState: LiveActivityContentState(
                status: .working, eventVersion: 1, updatedAt: now), staleDate: Int64(now) + 1200)
            var object = try JSONValue.parse(try RelayRequestSigner(key: key).liveActivity(push, ts: harness.clock.nowMilliseconds)).objectValue!
            mutate(&object)
            return try await harness.request("POST", "/v1/push/live-activity", body: JSONValue.object(object).serializedBytes()).status
        }
        func state(_ mutate: @escaping (inout JSONObject) -> Void) -> (inout JSONObject) -> Void {
            { object in
                var contentState = object["contentState"]!.objectValue!
                mutate(&contentState)
                object["contentState"] = .object(contentState)
            }
        }
        #expect(try await post { $0["event"] = "start" } == 400)
        #expect(try await post(state { $0["status"] = "busy" }) == 400)
        #expect(try await post(state { $0["extra"] = 1 }) == 400)
        #expect(try await post { $0["event"] = "end" } == 400, "end without endedAt")
        let nan = try await harness.request("POST", "/v1/push/live-activity", body: Array(#"{"tokens":["\#(TestToken.make())"],"event":"update","contentState":{"status":"working","eventVersion":1,"updatedAt":NaN}}"#.utf8))
        #expect(nan.status == 400)
        let infinity = try await harness.request("POST", "/v1/push/live-activity", body: Array(#"{"tokens":["\#(TestToken.make())"],"event":"update","contentState":{"status":"working","eventVersion":1,"updatedAt":1e400}}"#.utf8))
        #expect(infinity.status == 400)
        // Fractional updatedAt and endedAt are fine: the signature check is reached (valid → 200).
        let push = try LiveActivityPush(tokens: [TestToken.make()], event: .end, contentState: LiveActivityContentState(
            status: .complete, eventVersion: 2, updatedAt: now + 0.25, endedAt: now + 0.5), dismissalDate: Int64(now) + 900)
        #expect(try await harness.host(key).liveActivity(push).status == 200)
        await harness.stop()
    }

    @Test func healthAndReadinessAnswerWithNoStoreUnknownPathsAre404AndWrongMethods405() async throws {
        let harness = try await RelayHarness()
        for method in ["GET", "HEAD"] {
            for path in ["/healthz", "/readyz"] {
                let reply = try await harness.request(method, path)
                #expect(reply.status == 200 && reply.headers["cache-control"] == "no-store", "\(method) \(path)")
            }
        }
        let unknown = try await harness.request("GET", "/v1/push/nothing")
        #expect(unknown.status == 404 && unknown.body.isEmpty)
        let wrongMethod = try await harness.request("GET", "/v1/push/send")
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "POST" && wrongMethod.body.isEmpty, "wrong method")
        #expect(try await harness.request("GET", "/metrics").status == 404, "metrics are served on METRICS_LISTEN only")
        #expect(try await harness.metrics().contains("pushgate_relay_requests_total"))
        await harness.stop()
    }
}
