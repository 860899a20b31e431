import Foundation
import PushgateCore
import PushgateTestSupport
import PushgateTesting
import Testing

/// The `interruptionLevel` extension of `POST /v1/push` (docs/relay.md "`POST /v1/push`: the hapi
/// route"), and `/healthz` announcing it so a host knows it may send it.
@Suite(.hangLimit(.minutes(1))) struct HapiInterruptionLevelTests {
    private static func body(platform: String = "ios", token: String, level: JSONValue?) -> [UInt8] {
        var object = try! JSONValue.parse(HapiPushHarness.body(platform: platform, token: token)).objectValue!
        object["interruptionLevel"] = level
        return JSONValue.object(object).serializedBytes()
    }

    @Test func theLevelIsWrittenIntoApsLastAndWithoutItTheBytesAreHapis() async throws {
        let harness = try await HapiPushHarness()
        let envelope = HapiPushHarness.envelope()
        let alert = #""mutable-content":1,"alert":{"title":"HAPI","body":"New activity"},"sound":"default""#
        for (level, aps) in [(JSONValue?.none, "{\(alert)}"), ("time-sensitive", #"{\#(alert),"interruption-level":"time-sensitive"}"#),
                             ("passive", #"{\#(alert),"interruption-level":"passive"}"#), ("active", #"{\#(alert),"interruption-level":"active"}"#)] {
            let token = TestToken.make()
            let answer = try await harness.push(Self.body(token: token, level: level))
            #expect(answer.status == 200, "\(level?.serialized() ?? "none")")
            let record = try #require(harness.relay.received(token).first)
            #expect(record.payload?.serialized() == #"{"aps":\#(aps),"hapi":{"v":1,"e":"\#(envelope)"}}"#)
            #expect(record.pushType == "alert" && record.priority == "10")
        }
        await harness.stop()
    }

    @Test func anyOtherLevelIs400AndNothingIsSent() async throws {
        let harness = try await HapiPushHarness()
        for level: JSONValue in ["critical", "urgent", 1, .null] {
            let answer = try await harness.push(Self.body(token: TestToken.make(), level: level))
            #expect(answer.status == 400, "\(level.serialized())")
            #expect(answer.json.serialized()
                == #"{"ok":false,"code":"bad_request","message":"interruptionLevel must be passive, active or time-sensitive"}"#)
        }
        #expect(harness.apns.requests.isEmpty)
        await harness.stop()
    }

    /// hapi's FCM messages are data only: a level has no notification priority to change.
    @Test func anAndroidMessageIsUnchangedByTheLevel() async throws {
        let harness = try await HapiPushHarness()
        let token = "fcm:APA91b-Token"
        #expect(try await harness.push(Self.body(platform: "android", token: token, level: nil)).status == 200)
        #expect(try await harness.push(Self.body(platform: "android", token: token, level: "time-sensitive")).status == 200)
        let messages = (harness.fcm?.sends ?? []).compactMap(\.message)
        #expect(messages.count == 2 && messages[0] == messages[1])
        await harness.stop()
    }

    @Test func healthzAnnouncesTheExtension() async throws {
        let harness = try await RelayHarness()
        let reply = try await harness.request("GET", "/healthz")
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == #"{"status":"ok","extensions":["interruptionLevel"]}"#)
        await harness.stop()
    }
}
