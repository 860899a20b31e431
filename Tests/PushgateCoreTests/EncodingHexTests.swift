import Testing
@testable import PushgateCore

@Suite struct EncodingHexTests {
    @Test func encodesLowerCase() {
        #expect(Hex.encode([0x00, 0x1F, 0xA0, 0xFF]) == "001fa0ff")
        #expect(Hex.encode([]) == "")
    }

    @Test func decodesEitherCase() throws {
        #expect(try Hex.decode("001fA0fF") == [0x00, 0x1F, 0xA0, 0xFF])
    }

    @Test(arguments: ["0", "abc", "0g", " 00", "00 ", "0x00", "é0"])
    func rejectsMalformed(_ text: String) {
        #expect(throws: EncodingFormatError.self) { try Hex.decode(text) }
    }
}
