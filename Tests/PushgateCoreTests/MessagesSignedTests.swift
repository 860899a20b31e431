import Testing
import PushgateCore

@Suite struct MessagesSignedTests {
    /// Builds the message of one `signed-messages.json` case from its fields.
    static func message(endpoint: String, fields: JSONValue) throws -> String {
        let ts = try #require(fields["ts"]?.safeIntegerValue)
        let tokens = (fields["tokens"]?.arrayValue ?? []).compactMap(\.stringValue)
        switch endpoint {
        case "register-token":
            return SignedMessage.registerToken(ts: ts, token: try #require(fields["token"]?.stringValue),
                                               platform: try #require(fields["platform"]?.stringValue))
        case "register-live-activity-token", "unregister-live-activity-token":
            #expect(fields["kind"] == "liveactivity")
            return SignedMessage.liveActivityToken(ts: ts, token: try #require(fields["token"]?.stringValue))
        case "send":
            return SignedMessage.send(ts: ts, tokens: tokens, title: try #require(fields["title"]?.stringValue))
        case "live-activity":
            return try LiveActivityPush(json: fields).signedMessage(ts: ts)
        default:
            Issue.record("unknown endpoint \(endpoint)")
            return ""
        }
    }

    @Test func everyVectorMessageMatchesByteForByte() throws {
        let cases = try JSONFixtures.cases("vectors/signed-messages.json")
        #expect(cases.count == 8)
        for entry in cases {
            let endpoint = try #require(entry["endpoint"]?.stringValue)
            let expected = try #require(entry["message"]?.stringValue)
            let built = try Self.message(endpoint: endpoint, fields: try #require(entry["fields"]))
            #expect(Array(built.utf8) == Array(expected.utf8), "\(endpoint)")
        }
    }

    @Test func unregisterTokenAppendsTheSuffix() {
        #expect(SignedMessage.unregisterToken(ts: 1_764_669_600_000, token: "ab", platform: "ios")
            == "1764669600000.ab.ios.unregister")
    }

    @Test func sendSortsByUTF16AndKeepsDuplicates() {
        #expect(SignedMessage.send(ts: 1, tokens: ["b", "B", "a", "b"], title: "T.x") == "1.B,a,b,b.T.x")
    }

    @Test func liveActivityWritesNumbersTheJavaScriptWay() throws {
        let state = try LiveActivityContentState(status: .stale, eventVersion: 7, updatedAt: 1e21, endedAt: 0.000001)
        let push = try LiveActivityPush(tokens: ["t"], event: .end, contentState: state, dismissalDate: 5, staleDate: 6)
        #expect(push.signedMessage(ts: 9) == "9.t.end.stale.7.1e+21.0.000001.5.6")
    }

    @Test func liveActivityAddsTheSummaryTailWhenAnySummaryFieldIsPresent() throws {
        let counted = try LiveActivityContentState(status: .working, eventVersion: 1, updatedAt: 2, workingCount: 0)
        let push = try LiveActivityPush(tokens: ["t"], event: .update, contentState: counted)
        #expect(push.signedMessage(ts: 3) == "3.t.update.working.1.2.....0.[]")
        let plain = try LiveActivityContentState(status: .working, eventVersion: 1, updatedAt: 2)
        #expect(try LiveActivityPush(tokens: ["t"], event: .update, contentState: plain).signedMessage(ts: 3)
            == "3.t.update.working.1.2...")
    }
}
