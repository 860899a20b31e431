import Testing
import PushgateCore

/// protocol/hapi-push.md §11 line 30 (collapse-truncation).
@Suite struct HapiCollapseIdTests {
    @Test func dropsWholeScalarsToStayWithin64Bytes() {
        let id = "ready-" + String(repeating: "a", count: 56) + "😀"
        #expect(id.utf8.count == 66)
        let cut = HapiCollapseId.truncate(id)
        #expect(cut == "ready-" + String(repeating: "a", count: 56))
        #expect(cut?.utf8.count == 62)
    }

    @Test func longASCIIKeepsItsFirst64Bytes() {
        let id = String((0..<70).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
        #expect(HapiCollapseId.truncate(id) == String(id.prefix(64)))
    }

    @Test func emptyResultIsOmittedAndShortIdsStay() {
        #expect(HapiCollapseId.truncate("") == nil)
        #expect(HapiCollapseId.make(type: .ready, sessionId: "s1") == "ready-s1")
        #expect(HapiCollapseId.make(type: .permissionRequest, sessionId: String(repeating: "é", count: 40))?.utf8.count == 63)
        // A combining mark is a scalar of its own: the cut may fall between it and its base.
        let combining = String(repeating: "b", count: 63) + "e\u{301}"
        #expect(HapiCollapseId.truncate(combining) == String(repeating: "b", count: 63) + "e")
    }
}
