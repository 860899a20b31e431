import Foundation
import PushgateCore
import PushgateProviders
import PushgateTestSupport
import PushgateTesting
import Testing

/// The attention extension of `send` (docs/relay.md "Attention"): `interruptionLevel`,
/// `relevanceScore` and `category`, unsigned, written into `aps` for iOS tokens and read as the
/// notification priority for Android tokens; without them the bytes are OpenChamber's.
@Suite(.serialized, .hangLimit(.minutes(1))) struct AttentionTests {
    /// A signed send of one token whose attention members are then replaced by `fields`.
    private static func body(_ harness: RelayHarness, key: P256PrivateKey, token: String,
                             fields: [(String, JSONValue)]) throws -> [UInt8] {
        var object = try JSONValue.parse(RelayRequestSigner(key: key).send(
            tokens: [token], title: "Agent needs permission", ts: harness.clock.nowMilliseconds)).objectValue!
        for (name, value) in fields { object[name] = value }
        return JSONValue.object(object).serializedBytes()
    }

    @Test func eachFieldGoesIntoApsAsSent() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let title = #"{"title":"Agent needs permission"}"#
        let cases: [([(String, JSONValue)], String)] = [
            ([("interruptionLevel", "passive")],
             #"{"aps":{"alert":\#(title),"mutable-content":1,"interruption-level":"passive"}}"#),
            ([("interruptionLevel", "active"), ("relevanceScore", 0.25), ("category", "PUSHGATE_PERMISSION")],
             #"{"aps":{"alert":\#(title),"sound":"default","mutable-content":1,"interruption-level":"active","relevance-score":0.25,"category":"PUSHGATE_PERMISSION"}}"#),
            ([("interruptionLevel", "time-sensitive"), ("relevanceScore", 1)],
             #"{"aps":{"alert":\#(title),"sound":"default","mutable-content":1,"interruption-level":"time-sensitive","relevance-score":1}}"#),
            ([("relevanceScore", 0)],
             #"{"aps":{"alert":\#(title),"sound":"default","mutable-content":1,"relevance-score":0}}"#),
            ([("category", "PUSHGATE_QUESTION.v2-a")],
             #"{"aps":{"alert":\#(title),"sound":"default","mutable-content":1,"category":"PUSHGATE_QUESTION.v2-a"}}"#),
        ]
        for (fields, payload) in cases {
            let reply = try await host.post("send", Self.body(harness, key: host.key, token: token, fields: fields))
            #expect(reply.results.map(\.ok) == [true], "\(fields)")
            #expect(harness.received(token).last?.payload?.serialized() == payload, "\(fields)")
            harness.clock.advance(milliseconds: 1)
        }
        #expect(harness.received(token).count == cases.count)
        await harness.stop()
    }

    @Test func anyOtherValueOrTypeIs400AndNothingIsSent() async throws {
        let harness = try await RelayHarness(settings: ["SEND_LIMIT_PER_MINUTE": "1000", "SERVER_SEND_LIMIT_PER_MINUTE": "1000"])
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let invalid: [(String, JSONValue)] = [
            ("interruptionLevel", "critical"), ("interruptionLevel", "Active"), ("interruptionLevel", ""),
            ("interruptionLevel", 1), ("interruptionLevel", .null),
            ("relevanceScore", 1.5), ("relevanceScore", -0.1), ("relevanceScore", "0.5"), ("relevanceScore", true),
            ("category", "has space"), ("category", ""), ("category", .string(String(repeating: "c", count: 65))),
            ("category", "é"), ("category", 5),
        ]
        for field in invalid {
            let reply = try await harness.request("POST", "/v1/push/send", body: Self.body(harness, key: host.key, token: token, fields: [field]))
            #expect(reply.status == 400 && String(decoding: reply.body, as: UTF8.self) == #"{"error":"invalid_request"}"#,
                    "\(field.0): \(field.1.serialized())")
            harness.clock.advance(milliseconds: 1)
        }
        #expect(harness.fake.requests.isEmpty)
        await harness.stop()
    }

    /// OpenChamber's hosts send none of the fields: their pushes are byte for byte what they were.
    @Test func withoutTheFieldsTheAlertIsOpenChambers() async throws {
        let harness = try await RelayHarness()
        let host = harness.host()
        let token = TestToken.make()
        _ = try await host.registerToken(token)
        let reply = try await host.send(tokens: [token], title: "Agent finished", body: "refactor-auth", badge: 3,
                                        collapseId: "ready-s1", data: [("sessionId", "s1")])
        #expect(reply.results.map(\.ok) == [true])
        let record = try #require(harness.received(token).first)
        #expect(record.payload?.serialized()
            == #"{"aps":{"alert":{"title":"Agent finished","body":"refactor-auth"},"sound":"default","mutable-content":1,"badge":3,"thread-id":"ready-s1"},"sessionId":"s1"}"#)
        #expect(record.pushType == "alert" && record.priority == "10")
        await harness.stop()
    }

    /// Android reads the level as the priority: time-sensitive goes to its own channel,
    /// `PRIORITY_HIGH`; passive is `NORMAL` with `PRIORITY_LOW`; relevance and category change nothing.
    @Test func anAndroidTokenGetsTheLevelAsItsPriorityAndChannel() async throws {
        let chain = try await AndroidChain.start(settings: ["PUSHGATE_RELAY_ANDROID_TIME_SENSITIVE_CHANNEL_ID": "agents-urgent"])
        let host = OpenChamberHost(key: P256PrivateKey())
        let token = AndroidChain.fcmToken()
        #expect(try await chain.post("/v1/push/register-token", host.register(token, platform: "android")).status == 200)
        let cases: [(AlertAttention, String)] = [
            (AlertAttention(level: .timeSensitive, relevance: 0.9, category: AlertAttention.permissionCategory),
             #"{"priority":"HIGH","ttl":"3600s","notification":{"channel_id":"agents-urgent","tag":"permission-s9","notification_priority":"PRIORITY_HIGH"}}"#),
            (AlertAttention(level: .passive),
             #"{"priority":"NORMAL","ttl":"3600s","notification":{"channel_id":"default","tag":"permission-s9","notification_priority":"PRIORITY_LOW"}}"#),
            (AlertAttention(level: .active, relevance: 0.5),
             #"{"priority":"HIGH","ttl":"3600s","notification":{"channel_id":"default","tag":"permission-s9"}}"#),
        ]
        for (attention, android) in cases {
            let body = try RelayRequestSigner(key: host.key).send(tokens: [token], title: "Agent needs permission", collapseId: "permission-s9",
                                                                  attention: attention, ts: SystemClock().nowMilliseconds)
            let sent = try await chain.post("/v1/push/send", body)
            #expect(sent.json == #"{"results":[{"token":"\#(token)","ok":true}]}"#)
            #expect(chain.fcm.sends.last?.message?["android"]?.serialized() == android, "\(attention)")
        }
        #expect(chain.fcm.sends.allSatisfy { $0.message?["notification"] == .object(JSONObject([("title", "Agent needs permission")])) })
        try await chain.stop()
    }
}
