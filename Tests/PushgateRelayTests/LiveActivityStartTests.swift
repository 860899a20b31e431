import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// Push-to-start (docs/relay.md "Live Activity", an extension): a push-to-start token is bound as
/// a kind of its own, a `start` on the `live-activity` route reaches only such tokens with every
/// member ActivityKit needs, its attributes and alert are unsigned, and a token takes at most 6
/// starts an hour whichever hosts send them.
@Suite(.serialized, .hangLimit(.minutes(1))) struct LiveActivityStartTests {
    static let start = try! LiveActivityStart(attributesType: "PushgateActivityAttributes",
                                              attributes: JSONObject([("sessionId", "s1")]),
                                              alertTitle: "Build", alertBody: "Started working")

    /// The signed part of a start to `token`, stamped now, stale 20 minutes later.
    static func push(_ harness: RelayHarness, token: String, event: LiveActivityEvent = .start) throws -> LiveActivityPush {
        let now = harness.clock.nowMilliseconds
        let item = try LiveActivityItem(sessionID: "s1", title: "Build", status: .working, startedAt: Double(now) / 1_000)
        return try LiveActivityPush(tokens: [token], event: event, contentState: LiveActivityContentState(
            status: .working, eventVersion: now, updatedAt: Double(now) / 1_000, title: "Build", workingCount: 1, items: [item]),
            staleDate: now / 1_000 + 1_200)
    }

    /// A signed start body for `token` whose members are then changed by `mutate`.
    static func body(_ harness: RelayHarness, key: P256PrivateKey, token: String,
                     mutate: (inout JSONObject) -> Void = { _ in }) throws -> [UInt8] {
        var object = try JSONValue.parse(RelayRequestSigner(key: key).liveActivity(
            push(harness, token: token), start: start, ts: harness.clock.nowMilliseconds)).objectValue!
        mutate(&object)
        return JSONValue.object(object).serializedBytes()
    }

    @Test func aStartReachesThePushToStartTokenWithEveryMemberAndNothingElseReachesIt() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let startToken = TestToken.make(), activityToken = TestToken.make()
        #expect(try await host.registerLiveActivityStartToken(startToken).status == 200)
        #expect(try await host.registerLiveActivityToken(activityToken).status == 200)

        let push = try Self.push(harness, token: startToken)
        let started = try await host.liveActivity(push, start: Self.start)
        #expect(started.results.map(\.ok) == [true])
        let record = try #require(harness.received(startToken).first)
        #expect(record.pushType == "liveactivity" && record.priority == "10")
        #expect(record.header("apns-topic") == RelayHarness.bundleId + ".push-type.liveactivity")
        #expect(record.header("apns-expiration") == String(push.staleDate ?? 0), "a start goes stale as an update does")
        #expect(record.status == 200, "the fake APNs found every member a start needs")
        let state = push.contentState.json.serialized()
        #expect(record.payload?.serialized() == #"{"aps":{"timestamp":\#(harness.clock.nowMilliseconds / 1_000),"event":"start","#
            + #""content-state":\#(state),"stale-date":\#(push.staleDate ?? 0),"attributes-type":"PushgateActivityAttributes","#
            + #""attributes":{"sessionId":"s1"},"alert":{"title":"Build","body":"Started working"},"input-push-token":1}}"#)

        // Kinds never mix: a start reaches no activity token, an update or alert no start token.
        harness.clock.advance(milliseconds: 1)
        let wrongKind = try await host.liveActivity(try Self.push(harness, token: activityToken), start: Self.start)
        #expect(wrongKind.results.map(\.reason) == ["not_bound"])
        let update = try await host.liveActivity(try Self.push(harness, token: startToken, event: .update))
        #expect(update.results.map(\.reason) == ["not_bound"])
        #expect(try await host.send(tokens: [startToken], title: "Agent finished").results.map(\.reason) == ["not_bound"])
        #expect(harness.received(activityToken).isEmpty && harness.received(startToken).count == 1)

        // An accepted start leaves the token bound (it starts the next activity too) until unregistered.
        harness.clock.advance(milliseconds: 1)
        #expect(try await host.liveActivity(try Self.push(harness, token: startToken), start: Self.start).results.map(\.ok) == [true])
        #expect(try await host.unregisterLiveActivityStartToken(startToken).status == 200)
        harness.clock.advance(milliseconds: 1)
        let unbound = try await host.liveActivity(try Self.push(harness, token: startToken), start: Self.start)
        #expect(unbound.results.map(\.reason) == ["not_bound"])
        #expect(await harness.stopAndFindLeaks().isEmpty)
    }

    /// Six starts an hour per token, counted over every host bound to it; the seventh is 429
    /// with the seconds until the oldest leaves the hour. A host not bound spends nothing.
    @Test func aTokenTakesSixStartsAnHourWhicheverHostsSendThem() async throws {
        let harness = try await RelayHarness()
        let (first, second, stranger) = (harness.host(), harness.host(), harness.host())
        let token = TestToken.make()
        for host in [first, second] { #expect(try await host.registerLiveActivityStartToken(token).status == 200) }
        let t0 = harness.clock.nowMilliseconds
        for n in 0 ..< 6 {
            let host = n.isMultiple(of: 2) ? first : second
            #expect(try await host.liveActivity(try Self.push(harness, token: token), start: Self.start).results.map(\.ok) == [true])
            harness.clock.advance(milliseconds: 1_000)
        }
        let unbound = try await stranger.liveActivity(try Self.push(harness, token: token), start: Self.start)
        #expect(unbound.status == 200 && unbound.results.map(\.reason) == ["not_bound"], "a host without the token is not counted")

        let refused = try await harness.request("POST", "/v1/push/live-activity", body: Self.body(harness, key: first.key, token: token))
        #expect(refused.status == 429 && String(decoding: refused.body, as: UTF8.self) == #"{"error":"rate_limited"}"#)
        let waited = harness.clock.nowMilliseconds - t0
        #expect(refused.headers["retry-after"] == String((3_600_000 - waited + 999) / 1_000), "until the first start leaves the hour")
        harness.clock.advance(milliseconds: 1)
        #expect(try await second.liveActivity(try Self.push(harness, token: token), start: Self.start).status == 429)
        #expect(harness.received(token).count == 6)

        // An hour after the first start, one more fits.
        harness.clock.advance(milliseconds: 3_600_000 - (harness.clock.nowMilliseconds - t0))
        #expect(try await second.liveActivity(try Self.push(harness, token: token), start: Self.start).results.map(\.ok) == [true])
        #expect(try await first.liveActivity(try Self.push(harness, token: token), start: Self.start).status == 429)
        #expect(try await harness.metrics().contains(#"pushgate_relay_requests_total{route="live-activity",status="429",outcome="rate_limited"} 3"#))
        await harness.stop()
    }

    /// The same token in another letter case is the same device: bound as a second token, it
    /// still shares the first one's six starts.
    @Test func aTokenInAnotherLetterCaseSharesItsStarts() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let lower = TestToken.make().lowercased()
        let upper = lower.uppercased()
        for token in [lower, upper] { #expect(try await host.registerLiveActivityStartToken(token).status == 200) }
        for n in 0 ..< 6 {
            let token = n.isMultiple(of: 2) ? lower : upper
            #expect(try await host.liveActivity(try Self.push(harness, token: token), start: Self.start).results.map(\.ok) == [true])
            harness.clock.advance(milliseconds: 1_000)
        }
        for token in [lower, upper] {
            #expect(try await host.liveActivity(try Self.push(harness, token: token), start: Self.start).status == 429)
            harness.clock.advance(milliseconds: 1)
        }
        #expect(harness.received(lower).count == 3 && harness.received(upper).count == 3)
        await harness.stop()
    }

    /// The attributes and the alert are not signed; the event is.
    @Test func theStartMembersAreUnsignedButTheEventIsSigned() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerLiveActivityStartToken(token)
        let changed = try Self.body(harness, key: host.key, token: token) { object in
            object["attributes"] = .object(JSONObject([("sessionId", "s2")]))
            object["alert"] = .object(JSONObject([("title", "Deploy")]))
        }
        #expect(try await host.post("live-activity", changed).results.map(\.ok) == [true])
        #expect(harness.received(token).last?.payload?["aps"]?["attributes"]?["sessionId"] == "s2")
        harness.clock.advance(milliseconds: 1)
        // An update's signature does not carry over to a start of the same state.
        var update = try JSONValue.parse(RelayRequestSigner(key: host.key).liveActivity(
            Self.push(harness, token: token, event: .update), ts: harness.clock.nowMilliseconds)).objectValue!
        update["event"] = "start"
        for (key, value) in Self.start.requestMembers { update[key] = value }
        let forged = try await harness.request("POST", "/v1/push/live-activity", body: JSONValue.object(update).serializedBytes())
        #expect(forged.status == 401 && String(decoding: forged.body, as: UTF8.self) == #"{"error":"invalid_signature"}"#)
        #expect(harness.received(token).count == 1)
        await harness.stop()
    }

    @Test func malformedStartsAre400BeforeAnythingIsSent() async throws {
        let harness = try await RelayHarness(settings: ["SEND_LIMIT_PER_MINUTE": "1000"])
        let key = P256PrivateKey()
        let token = TestToken.make()
        _ = try await harness.host(key).registerLiveActivityStartToken(token)
        let mutations: [(String, (inout JSONObject) -> Void)] = [
            ("no attributesType", { $0["attributesType"] = nil }),
            ("an attributesType that is not a string", { $0["attributesType"] = 7 }),
            ("an empty attributesType", { $0["attributesType"] = "" }),
            ("an attributesType with a dash", { $0["attributesType"] = "Pushgate-Attributes" }),
            ("an attributesType starting with a digit", { $0["attributesType"] = "1Attributes" }),
            ("an attributesType of 129 bytes", { $0["attributesType"] = .string(String(repeating: "A", count: 129)) }),
            ("no attributes", { $0["attributes"] = nil }),
            ("attributes not an object", { $0["attributes"] = "s1" }),
            ("attributes too large for APNs", { $0["attributes"] = .object(JSONObject([("sessionId", .string(String(repeating: "s", count: 4_000)))])) }),
            ("no alert", { $0["alert"] = nil }),
            ("an alert that is a string", { $0["alert"] = "Build" }),
            ("an alert title that is not a string", { $0["alert"] = .object(JSONObject([("title", 1)])) }),
            ("an alert body that is not a string", { $0["alert"] = .object(JSONObject([("title", "Build"), ("body", .null)])) }),
            ("an alert body of 1025 bytes", { $0["alert"] = .object(JSONObject([("title", "Build"),
                                                                                ("body", .string(String(repeating: "b", count: 1_025)))])) }),
            ("an alert without a title", { $0["alert"] = .object(JSONObject([("body", "x")])) }),
            ("an empty alert title", { $0["alert"] = .object(JSONObject([("title", "")])) }),
            ("an alert with a sound", { $0["alert"] = .object(JSONObject([("title", "Build"), ("sound", "default")])) }),
            ("an alert title of 257 bytes", { $0["alert"] = .object(JSONObject([("title", .string(String(repeating: "t", count: 257)))])) }),
            ("two tokens", { $0["tokens"] = .array([.string(token), .string(TestToken.make())]) }),
            ("a bad priority", { $0["priority"] = 7 }),
        ]
        for (name, mutate) in mutations {
            let reply = try await harness.request("POST", "/v1/push/live-activity", body: Self.body(harness, key: key, token: token, mutate: mutate))
            #expect(reply.status == 400 && String(decoding: reply.body, as: UTF8.self) == #"{"error":"invalid_request"}"#, "\(name)")
            harness.clock.advance(milliseconds: 1)
        }
        // An update or end carrying a start's members is refused too.
        var update = try JSONValue.parse(RelayRequestSigner(key: key).liveActivity(
            Self.push(harness, token: token, event: .update), ts: harness.clock.nowMilliseconds)).objectValue!
        update["alert"] = .object(JSONObject([("title", "Build")]))
        #expect(try await harness.request("POST", "/v1/push/live-activity", body: JSONValue.object(update).serializedBytes()).status == 400)
        // A register of an unknown kind, and a send whose title is the start register's suffix.
        var register = try JSONValue.parse(RelayRequestSigner(key: key).liveActivityStartToken(token, ts: harness.clock.nowMilliseconds)).objectValue!
        register["kind"] = "begin"
        #expect(try await harness.request("POST", "/v1/push/register-live-activity-token",
                                          body: JSONValue.object(register).serializedBytes()).status == 400)
        let send = try RelayRequestSigner(key: key).send(tokens: [token], title: "ios.liveactivity.start", ts: harness.clock.nowMilliseconds)
        #expect(try await harness.request("POST", "/v1/push/send", body: send).status == 400, "it signs a start register's bytes")
        #expect(harness.fake.requests.isEmpty)
        await harness.stop()
    }
}
