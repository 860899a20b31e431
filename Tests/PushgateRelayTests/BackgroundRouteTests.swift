import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// `POST /v1/push/background` (docs/relay.md "Background"): a signed silent push that removes
/// delivered notifications, guarded as `send`, to the tokens this host holds only.
@Suite(.serialized, .hangLimit(.minutes(1))) struct BackgroundRouteTests {
    /// A signed background body whose members are then changed by `mutate`.
    private static func body(_ harness: RelayHarness, key: P256PrivateKey, tokens: [String] = [TestToken.make()],
                             collapseIds: [String] = ["ready-s1"], mutate: (inout JSONObject) -> Void = { _ in }) throws -> [UInt8] {
        var object = try JSONValue.parse(RelayRequestSigner(key: key).background(
            tokens: tokens, collapseIds: collapseIds, ts: harness.clock.nowMilliseconds)).objectValue!
        mutate(&object)
        return JSONValue.object(object).serializedBytes()
    }

    @Test func anIPhoneGetsASilentPushNamingTheCollapseIdsAndOnlyFromItsHost() async throws {
        let harness = try await RelayHarness()
        let (host, other) = (harness.host(), harness.host())
        let mine = TestToken.make(), theirs = TestToken.make()
        _ = try await host.registerToken(mine)
        _ = try await other.registerToken(theirs)
        let reply = try await host.background(tokens: [mine, theirs], collapseIds: ["ready-s1", "permission-s9"])
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == #"{"results":[{"token":"\#(mine)","ok":true},"#
            + #"{"token":"\#(theirs)","ok":false,"reason":"not_bound","retryable":true}]}"#)
        #expect(harness.received(theirs).isEmpty, "a token bound to another host gets nothing")
        let record = try #require(harness.received(mine).first)
        #expect(record.pushType == "background" && record.priority == "5")
        #expect(record.header("apns-topic") == RelayHarness.bundleId)
        #expect(record.header("apns-collapse-id") == nil)
        #expect(record.header("apns-expiration") == String(harness.clock.nowMilliseconds / 1_000 + 3_600), "APNS_TTL_SECONDS")
        #expect(record.payload?.serialized() == #"{"aps":{"content-available":1},"dismiss":{"collapseIds":["ready-s1","permission-s9"]}}"#)
        #expect(record.status == 200)
        #expect(try await harness.metrics().contains(#"pushgate_relay_requests_total{route="background",status="200",outcome="ok"} 1"#))
        await harness.stop()
    }

    @Test func aReplayIs401AndNothingMoreIsSent() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let body = try Self.body(harness, key: host.key, tokens: [token])
        #expect(try await host.post("background", body).results.map(\.ok) == [true])
        let replay = try await harness.request("POST", "/v1/push/background", body: body)
        #expect(replay.status == 401 && String(decoding: replay.body, as: UTF8.self) == #"{"error":"replay"}"#)
        #expect(harness.received(token).count == 1)
        await harness.stop()
    }

    @Test func schemaViolationsAre400() async throws {
        let harness = try await RelayHarness(settings: ["SEND_LIMIT_PER_MINUTE": "1000"])
        let key = P256PrivateKey()
        let mutations: [(String, (inout JSONObject) -> Void)] = [
            ("no collapseIds", { $0["collapseIds"] = nil }),
            ("no collapse id", { $0["collapseIds"] = [] }),
            ("33 collapse ids", { $0["collapseIds"] = .array((0..<33).map { .string("c\($0)") }) }),
            ("a duplicate", { $0["collapseIds"] = ["a", "b", "a"] }),
            ("an empty one", { $0["collapseIds"] = [""] }),
            ("65 bytes", { $0["collapseIds"] = [.string(String(repeating: "c", count: 65))] }),
            ("a line feed", { $0["collapseIds"] = ["ready\ns1"] }),
            ("a carriage return", { $0["collapseIds"] = ["ready\rs1"] }),
            ("a NUL", { $0["collapseIds"] = ["ready\u{0}s1"] }),
            ("a number", { $0["collapseIds"] = [1] }),
            ("a string", { $0["collapseIds"] = "ready-s1" }),
            ("no tokens", { $0["tokens"] = [] }),
            ("101 tokens", { $0["tokens"] = .array((0..<101).map { _ in .string(TestToken.make()) }) }),
            ("bad env", { $0["env"] = "staging" }),
        ]
        for (name, mutate) in mutations {
            let reply = try await harness.request("POST", "/v1/push/background", body: Self.body(harness, key: key, mutate: mutate))
            #expect(reply.status == 400 && String(decoding: reply.body, as: UTF8.self) == #"{"error":"invalid_request"}"#, "\(name)")
        }
        let limits = try Self.body(harness, key: key, collapseIds: (0..<32).map { "permission-" + String(repeating: "x", count: 51) + "\($0 % 10)\($0 / 10)" })
        #expect(try await harness.request("POST", "/v1/push/background", body: limits).status == 200, "32 ids of 64 bytes")
        #expect(harness.fake.requests.isEmpty)
        await harness.stop()
    }

    /// A `send` titled `background` (or ending in `.background`) signs a background request's
    /// bytes (docs/security.md, M3).
    @Test func aSendThatSignsABackgroundMessageIs400() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        for title in ["background", "x.background"] {
            let reply = try await host.send(tokens: [token], title: title)
            #expect(reply.status == 400 && reply.errorCode == "invalid_request", "\(title)")
            harness.clock.advance(milliseconds: 1)
        }
        #expect(try await host.send(tokens: [token], title: "background tasks done").results.map(\.ok) == [true])
        #expect(harness.received(token).count == 1)
        await harness.stop()
    }

    /// Ids are distinct by their bytes, as JSON Schema's uniqueItems and the app compare them:
    /// a precomposed and a decomposed "é" are two ids (Swift's == would take them for one).
    @Test func collapseIdsAreDistinctAsBytes() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let (precomposed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        let reply = try await host.background(tokens: [token], collapseIds: [precomposed, decomposed])
        #expect(reply.status == 200)
        let record = try #require(harness.received(token).first)
        #expect(record.payload?["dismiss"]?["collapseIds"]?.arrayValue?.compactMap(\.stringValue).map { Array($0.utf8) }
            == [Array(precomposed.utf8), Array(decomposed.utf8)])
        let twice = try await host.background(tokens: [token], collapseIds: [precomposed, "caf\u{E9}"])
        #expect(twice.status == 400, "the same bytes twice are still a duplicate")
        await harness.stop()
    }

    @Test func theRouteIsPostOnlyWithA16KiBBody() async throws {
        let harness = try await RelayHarness()
        #expect(try await harness.request("GET", "/v1/push/background").status == 405)
        let port = harness.relay.port
        let declared = try await onOwnThread { try RawHTTPConnection.postHeadOnly(port: port, path: "/v1/push/background", length: 16 * 1024 + 1) }
        #expect(declared.status == 413 && declared.bodyText == #"{"error":"payload_too_large"}"#)
        await harness.stop()
    }

    @Test func anAndroidPhoneGetsADataMessageNamingTheCollapseIds() async throws {
        let chain = try await AndroidChain.start()
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        let body = try RelayRequestSigner(key: host.key).background(tokens: [token], collapseIds: ["ready-s1", "permission-s9"],
                                                                   ts: SystemClock().nowMilliseconds)
        let sent = try await chain.post("/v1/push/background", body)
        #expect(sent.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
        let message = try #require(chain.fcm.sends.first?.message)
        #expect(JSONValue.object(message).serialized()
            == #"{"token":"\#(token)","data":{"dismiss_collapse_ids":"ready-s1,permission-s9"},"android":{"priority":"HIGH","ttl":"3600s"}}"#)
        #expect(chain.apns.requests.isEmpty)
        try await chain.stop()
    }

    /// `--dry-run` writes both platforms' background pushes beside the alerts, tokens redacted.
    @Test func dryRunWritesBackgroundPushes() async throws {
        let (dryRun, chain, host, iosToken, androidToken) = try await DryRunRelay.withBothPlatformsBound()
        let body = try RelayRequestSigner(key: host.key).background(tokens: [iosToken, androidToken], collapseIds: ["ready-s1"],
                                                                   ts: SystemClock().nowMilliseconds)
        let sent = try await chain.post("/v1/push/background", body)
        #expect(sent.json == #"{"results":[{"token":"\#(iosToken)","ok":true},{"token":"\#(androidToken)","ok":true}]}"#)
        let lines = try await dryRun.stop().split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let ios = try #require(lines.first { $0["pushType"] == "background" })
        #expect(ios["priority"] == 5 && ios["token"]?.stringValue == Redact.token(iosToken))
        #expect(ios["payload"]?.serialized() == #"{"aps":{"content-available":1},"dismiss":{"collapseIds":["ready-s1"]}}"#)
        let android = try #require(lines.first { $0["platform"] == "android" })
        #expect(android["message"]?["data"]?.serialized() == #"{"dismiss_collapse_ids":"ready-s1"}"#)
    }
}
