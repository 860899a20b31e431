import Testing
import PushgateCore

/// protocol/hapi-push.md §11 line 4 against the vector file itself (not a copy of its text), and the
/// cap boundary of line 9 on real payloads.
@Suite struct HapiPayloadVectorTests {
    static func readyCase() throws -> String {
        let cases = try JSONFixtures.cases("vectors/hapi-envelopes.json")
        let ready = try #require(cases.first { $0["name"] == "ready" })
        return try #require(ready["canonicalPlaintext"]?.stringValue)
    }

    // protocol/hapi-push.md §11 payload-omits-absent
    @Test func readyPayloadWithAbsentOrEmptyOptionalsIsTheReadyVector() throws {
        let expected = Array(try Self.readyCase().utf8)
        let absent = HapiPayload(type: .ready, sessionId: "s1", title: "HAPI", body: "Ready for input")
        let empty = HapiPayload(type: .ready, sessionId: "s1", requestId: "", title: "HAPI", body: "Ready for input",
                                severity: HapiSeverity(rawValue: ""), notifySummary: "")
        #expect(absent.canonicalPlaintext == expected)
        #expect(empty.canonicalPlaintext == expected)
        #expect(absent.json["requestId"] == nil && empty.json["severity"] == nil && empty.json["notifySummary"] == nil)
    }

    // protocol/hapi-push.md §11 cap-boundary: the chosen plaintext of 2372 bytes seals to exactly 3200 characters
    @Test func chosenPlaintextAtTheCapSealsTo3200Characters() throws {
        var payload = HapiPayload(type: .ready, sessionId: "s1", title: "t", body: "")
        payload.body = String(repeating: "é", count: (2372 - payload.canonicalPlaintext.count) / 2)
        while payload.canonicalPlaintext.count < 2372 { payload.body += "a" }
        #expect(payload.canonicalPlaintext.count == 2372)
        let chosen = try #require(HapiPlaintext.choose(for: payload))
        let envelope = try HapiEnvelope.seal(chosen.bytes, key: HapiPushKey.random())
        #expect(chosen.form == .full && envelope.utf8.count == 3200)
        payload.body += "a"
        let fallback = try #require(HapiPlaintext.choose(for: payload))
        #expect(fallback.form == .minimal && fallback.bytes == payload.minimal.canonicalPlaintext)
    }
}
