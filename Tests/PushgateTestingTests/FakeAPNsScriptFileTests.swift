import Testing
@testable import PushgateTesting

@Suite(.timeLimit(.minutes(1))) struct FakeAPNsScriptFileTests {
    private func parse(_ text: String) throws(FakeScriptFile.FormatError) -> [String: ScriptedResponse] {
        try FakeAPNsScriptFile.parse(Array(text.utf8))
    }

    @Test func readsStatusReasonAndDelay() throws {
        let scripts = try parse(#"{"aa11":{"status":410,"reason":"Unregistered"},"bb22":{"status":200,"delayMs":250}}"#)
        #expect(scripts == [
            "aa11": ScriptedResponse(status: 410, reason: .unregistered),
            "bb22": ScriptedResponse(status: 200, delayMilliseconds: 250),
        ])
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
        #"{"":{"status":200}}"#,
        #"{"aa":{"status":200}"#,
    ])
    func rejectsMalformedScripts(_ text: String) {
        #expect(throws: FakeScriptFile.FormatError.self) { try parse(text) }
    }
}
