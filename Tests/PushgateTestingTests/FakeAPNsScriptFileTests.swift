import Testing
@testable import PushgateTesting
import PushgateTestSupport

@Suite(.hangLimit(.minutes(1))) struct FakeAPNsScriptFileTests {
    private func parse(_ text: String) throws(FakeScriptFile.FormatError) -> [String: [ScriptedResponse]] {
        try FakeAPNsScriptFile.parse(Array(text.utf8))
    }

    @Test func readsStatusReasonDelayAndRetryAfter() throws {
        let scripts = try parse(#"""
            {"aa11":{"status":410,"reason":"Unregistered"},"bb22":{"status":200,"delayMs":250},
             "cc33":{"status":429,"reason":"TooManyRequests","retryAfter":30}}
            """#)
        #expect(scripts == [
            "aa11": [ScriptedResponse(status: 410, reason: .unregistered)],
            "bb22": [ScriptedResponse(status: 200, delayMilliseconds: 250)],
            "cc33": [ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 30)],
        ])
    }

    @Test func anArrayIsASequenceForTheToken() throws {
        let scripts = try parse(#"{"aa11":[{"status":503,"retryAfter":0},{"status":503,"retryAfter":86400},{"status":200}]}"#)
        #expect(scripts == ["aa11": [
            ScriptedResponse(status: 503, retryAfterSeconds: 0), ScriptedResponse(status: 503, retryAfterSeconds: 86_400),
            ScriptedResponse(status: 200),
        ]])
        let longest = "[" + Array(repeating: #"{"status":200}"#, count: FakeScriptFile.sequenceLimit).joined(separator: ",") + "]"
        #expect(try parse(#"{"aa":\#(longest)}"#)["aa"]?.count == 1000)
    }

    @Test(arguments: [
        #"[]"#,
        #"{"aa":1}"#,
        #"{"aa":{}}"#,
        #"{"aa":{"status":"410"}}"#,
        #"{"aa":{"status":99}}"#,
        #"{"aa":{"status":410.5}}"#,
        #"{"aa":{"status":410,"reason":""}}"#,
        #"{"aa":{"status":410,"reason":7}}"#,
        #"{"aa":{"status":200,"delayMs":-1}}"#,
        #"{"aa":{"status":200,"delay":5}}"#,
        #"{"aa":{"status":429,"retryAfter":-1}}"#,
        #"{"aa":{"status":429,"retryAfter":86401}}"#,
        #"{"aa":{"status":429,"retryAfter":"30"}}"#,
        #"{"aa":{"status":429,"retry-after":30}}"#,
        #"{"aa":[]}"#,
        #"{"aa":[{"status":200},{"status":200,"extra":1}]}"#,
        #"{"aa":[[{"status":200}]]}"#,
        #"{"":{"status":200}}"#,
        #"{"aa":{"status":200}"#,
    ])
    func rejectsMalformedScripts(_ text: String) {
        #expect(throws: FakeScriptFile.FormatError.self) { try parse(text) }
    }

    @Test func rejectsASequenceOverTheLimitAndNamesTheFaultyStep() {
        let tooLong = "[" + Array(repeating: #"{"status":200}"#, count: FakeScriptFile.sequenceLimit + 1).joined(separator: ",") + "]"
        #expect(throws: FakeScriptFile.FormatError(message: "aa: a sequence holds 1 to 1000 responses")) { try parse(#"{"aa":\#(tooLong)}"#) }
        #expect(throws: FakeScriptFile.FormatError(message: "aa[1]: unknown key extra")) {
            try parse(#"{"aa":[{"status":200},{"status":200,"extra":1}]}"#)
        }
    }
}
