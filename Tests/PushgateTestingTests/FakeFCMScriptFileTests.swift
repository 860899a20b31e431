import Testing
@testable import PushgateTesting
import PushgateTestSupport

@Suite(.hangLimit(.minutes(1))) struct FakeFCMScriptFileTests {
    private func parse(_ text: String) throws(FakeScriptFile.FormatError) -> [String: [FakeFCMScript]] {
        try FakeFCMScriptFile.parse(Array(text.utf8))
    }

    @Test func namesPresetsOrSpellsTheErrorOut() throws {
        let scripts = try parse(#"""
            {"a":"unregistered","b":{"preset":"quota-exceeded","delayMs":20,"retryAfter":60},"c":{"status":200,"delayMs":5},
             "d":{"status":400,"errorStatus":"INVALID_ARGUMENT","errorCode":"INVALID_ARGUMENT","fields":["message.token"]},
             "e":{"status":503,"errorStatus":"UNAVAILABLE","retryAfter":10}}
            """#)
        #expect(scripts["a"] == [FakeFCMScript(.unregistered)])
        #expect(scripts["b"] == [FakeFCMScript(.quotaExceeded, delayMilliseconds: 20, retryAfterSeconds: 60)])
        #expect(scripts["c"] == [FakeFCMScript(nil, delayMilliseconds: 5)])
        #expect(scripts["d"]?.first?.error?.fieldViolations == ["message.token"])
        #expect(scripts["e"]?.first?.retryAfterSeconds == 10)
        #expect(scripts["e"]?.first?.error?.status == 503)
    }

    @Test func anArrayIsASequenceAndTakesPresets() throws {
        let scripts = try parse(#"{"t":["unavailable",{"preset":"unavailable","retryAfter":5},{"status":200,"retryAfter":0}]}"#)
        #expect(scripts == ["t": [
            FakeFCMScript(.unavailable), FakeFCMScript(.unavailable, retryAfterSeconds: 5), FakeFCMScript(nil, retryAfterSeconds: 0),
        ]])
    }

    @Test(arguments: [
        #"{"a":"gone"}"#,
        #"{"a":{"status":503}}"#,
        #"{"a":{"status":200,"errorStatus":"X"}}"#,
        #"{"a":{"preset":"internal","status":500}}"#,
        #"{"a":{"status":404,"errorStatus":"NOT_FOUND","reason":"x"}}"#,
        #"{"a":{"preset":"internal","retryAfter":86401}}"#,
        #"{"a":{"preset":"internal","retryAfter":1.5}}"#,
        #"{"a":{"preset":"internal","retry_after":1}}"#,
        #"{"a":[]}"#,
        #"{"a":["internal","gone"]}"#,
        #"{"a":[["internal"]]}"#,
        #"{"":"internal"}"#,
        "[]",
    ])
    func rejectsMalformedScripts(_ text: String) {
        #expect(throws: FakeScriptFile.FormatError.self) { try parse(text) }
    }

    @Test func rejectsASequenceOverTheLimit() {
        let tooLong = "[" + Array(repeating: #""internal""#, count: FakeScriptFile.sequenceLimit + 1).joined(separator: ",") + "]"
        #expect(throws: FakeScriptFile.FormatError(message: "a: a sequence holds 1 to 1000 responses")) { try parse(#"{"a":\#(tooLong)}"#) }
    }
}
