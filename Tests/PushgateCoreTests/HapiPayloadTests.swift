import Testing
import PushgateCore

@Suite struct HapiPayloadTests {
    static let readyPlaintext = #"{"body":"Ready for input","contractVersion":"1","sessionId":"s1","title":"HAPI","type":"ready"}"#

    // protocol/hapi-push.md §11 payload-omits-absent
    @Test func leavesOutAbsentAndEmptyOptionalFields() {
        let absent = HapiPayload(type: .ready, sessionId: "s1", title: "HAPI", body: "Ready for input")
        #expect(absent.canonicalPlaintext == Array(Self.readyPlaintext.utf8))
        let empty = HapiPayload(type: .ready, sessionId: "s1", requestId: "", title: "HAPI", body: "Ready for input",
                                severity: HapiSeverity(rawValue: ""), notifySummary: "")
        #expect(empty.canonicalPlaintext == Array(Self.readyPlaintext.utf8))
    }

    @Test func writesSessionNameAndURLEvenWhenEmpty() {
        let payload = HapiPayload(type: .permissionRequest, sessionId: "s1", sessionName: "", url: "", requestId: "r1",
                                  title: "T", body: "B", severity: .warning)
        #expect(JSONValue.object(payload.json).serialized() == #"""
            {"type":"permission-request","sessionId":"s1","sessionName":"","url":"","requestId":"r1","title":"T","body":"B","severity":"warning","contractVersion":"1"}
            """#)
    }

    @Test func keepsTheSummaryTextUnsorted() {
        let payload = HapiPayload(type: .ready, sessionId: "s1", title: "t", body: "b",
                                  notifySummary: #"{"version":1,"summary":"完成","action":"next"}"#)
        #expect(String(decoding: payload.canonicalPlaintext, as: UTF8.self) == #"""
            {"body":"b","contractVersion":"1","notifySummary":"{\"version\":1,\"summary\":\"完成\",\"action\":\"next\"}","sessionId":"s1","title":"t","type":"ready"}
            """#)
    }

    @Test func readsAPlaintextAsADeviceDoes() throws {
        let payload = try HapiPayload(plaintext: Array(#"{"type":"future","sessionId":"s","title":"t","body":"b","contractVersion":"1","extra":"x"}"#.utf8))
        #expect(payload.type == HapiNotificationType(rawValue: "future"))
        #expect(payload.sessionName == nil)
        #expect(payload.json["extra"] == nil)
    }

    // protocol/hapi-push.md §3 receiver rule 6, §11 device-drop (non-string value)
    @Test(arguments: [
        (#"{"type":"ready","sessionId":"s","title":"t","body":"b","contractVersion":1}"#, "contractVersion"),
        (#"{"type":"ready","sessionId":"s","title":"t","body":"b","contractVersion":"1","badge":2}"#, "badge"),
        (#"{"type":"ready","sessionId":"s","title":"t","contractVersion":"1"}"#, "body"),
        (#"{"sessionId":"s","title":"t","body":"b","contractVersion":"1"}"#, "type"),
        (#"["ready"]"#, "plaintext"),
        (#"{"type":"ready""#, "plaintext"),
    ])
    func refusesPlaintextsADeviceWouldDrop(text: String, field: String) {
        #expect(performing: { try HapiPayload(plaintext: Array(text.utf8)) }, throws: { ($0 as? WireFieldError)?.field == field })
    }

    static let fullPayload = HapiPayload(type: .permissionRequest, sessionId: "s1", sessionName: "Demo", url: "/sessions/s1",
                                         requestId: "r1", title: "Permission Request", body: "Claude Bash: ls",
                                         severity: .warning, notifySummary: #"{"version":1,"summary":"S"}"#)

    @Test func choosesTheFullPlaintextWhenItFits() throws {
        let chosen = try #require(HapiPlaintext.choose(for: Self.fullPayload))
        #expect(chosen.form == .full)
        #expect(chosen.bytes == Self.fullPayload.canonicalPlaintext)
    }

    // protocol/hapi-push.md §11 cap-boundary: 2372 bytes go in full, 2373 fall back
    @Test func fallsBackExactlyAtTheCap() throws {
        var payload = HapiPayload(type: .ready, sessionId: "s1", title: "t", body: "")
        let base = payload.canonicalPlaintext.count
        payload.body = String(repeating: "a", count: 2372 - base)
        #expect(payload.canonicalPlaintext.count == 2372)
        #expect(HapiPlaintext.choose(for: payload)?.form == .full)
        payload.body += "a"
        #expect(HapiPlaintext.choose(for: payload)?.form == .minimal)
    }

    // protocol/hapi-push.md §11 fallback-summary
    @Test func dropsOnlyTheSummaryFirst() throws {
        var payload = Self.fullPayload
        payload.notifySummary = String(repeating: "中", count: 4000)
        let chosen = try #require(HapiPlaintext.choose(for: payload))
        #expect(chosen.form == .withoutSummary)
        var expected = Self.fullPayload
        expected.notifySummary = nil
        #expect(chosen.bytes == expected.canonicalPlaintext)
    }

    // protocol/hapi-push.md §11 fallback-minimal
    @Test func fallsBackToTheMinimalObject() throws {
        var payload = Self.fullPayload
        payload.title = String(repeating: "T", count: 2000)
        payload.body = String(repeating: "B", count: 2000)
        let chosen = try #require(HapiPlaintext.choose(for: payload))
        #expect(chosen.form == .minimal)
        #expect(String(decoding: chosen.bytes, as: UTF8.self)
            == #"{"body":"New activity","contractVersion":"1","requestId":"r1","sessionId":"s1","title":"HAPI","type":"permission-request"}"#)
        payload.requestId = nil
        #expect(String(decoding: try #require(HapiPlaintext.choose(for: payload)).bytes, as: UTF8.self)
            == #"{"body":"New activity","contractVersion":"1","sessionId":"s1","title":"HAPI","type":"permission-request"}"#)
    }

    // protocol/hapi-push.md §11 fallback-fail
    @Test func givesUpWhenEvenTheMinimalObjectIsTooLarge() {
        var payload = Self.fullPayload
        payload.sessionId = String(repeating: "s", count: 4000)
        #expect(HapiPlaintext.choose(for: payload) == nil)
    }
}
