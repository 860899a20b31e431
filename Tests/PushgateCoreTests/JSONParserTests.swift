import Testing
import PushgateCore

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue.parse(" {\"a\" : [1, -0, 2.50, 1e2, true, false, null, \"x\"], \"b\":{}}\r\n\t")
        #expect(value == ["a": [1, 0, 2.5, .double(100), true, false, nil, "x"], "b": [:]])
        #expect(try JSONValue.parse("\"top\"") == "top")
        #expect(try JSONValue.parse("42") == .integer(42))
    }

    @Test func keepsIntegersExactAndFallsBackToDouble() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONValue.parse("9223372036854775808") == .double(0x1p63))
        #expect(try JSONValue.parse("-9223372036854775809") == .double(-0x1p63))
        #expect(try JSONValue.parse("1764669600000") == .integer(1_764_669_600_000))
        #expect(try JSONValue.parse("1.0") == .double(1))
        #expect(try JSONValue.parse("1E+2") == .double(100))
        #expect(try JSONValue.parse("0.30000000000000004") == .double(0.30000000000000004))
        #expect(try JSONValue.parse("1e-400") == .double(0))
    }

    @Test func decodesEscapes() throws {
        let value = try JSONValue.parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u4E2D\ud83d\ude00 raw é""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t\u{41}é中😀 raw é"))
    }

    @Test func parsesBytesAndTextAlike() throws {
        let text = #"{"a":"完成","b":[1.5]}"#
        #expect(try JSONValue.parse(Array(text.utf8)) == JSONValue.parse(text))
    }

    @Test func keepsMemberOrder() throws {
        let object = try #require(try JSONValue.parse(#"{"z":1,"a":2,"m":3}"#).objectValue)
        #expect(object.keys == ["z", "a", "m"])
    }

    @Test(arguments: [
        ("", JSONParseError.Reason.unexpectedEnd, 0),
        ("   ", .unexpectedEnd, 3),
        ("[1,]", .unexpectedCharacter, 3),
        (#"{"a":1,}"#, .unexpectedCharacter, 7),
        (#"{"a" 1}"#, .unexpectedCharacter, 5),
        ("{a:1}", .unexpectedCharacter, 1),
        ("[1 2]", .unexpectedCharacter, 3),
        ("[1", .unexpectedEnd, 2),
        (#"{"a":1"#, .unexpectedEnd, 6),
        ("// c\n1", .unexpectedCharacter, 0),
        ("1 /* c */", .trailingCharacters, 2),
        ("01", .invalidNumber, 1),
        ("-01", .invalidNumber, 2),
        ("-", .invalidNumber, 1),
        ("+1", .unexpectedCharacter, 0),
        (".5", .unexpectedCharacter, 0),
        ("1.", .invalidNumber, 2),
        ("1.e3", .invalidNumber, 2),
        ("1e", .invalidNumber, 2),
        ("1e+", .invalidNumber, 3),
        ("1e400", .numberOutOfRange, 0),
        ("-1e400", .numberOutOfRange, 0),
        ("NaN", .unexpectedCharacter, 0),
        ("Infinity", .unexpectedCharacter, 0),
        ("tru", .unexpectedEnd, 3),
        ("nul1", .unexpectedCharacter, 3),
        ("True", .unexpectedCharacter, 0),
        ("1 2", .trailingCharacters, 2),
        (#""abc"#, .unexpectedEnd, 4),
        ("\"a\tb\"", .controlCharacter, 2),
        ("\"a\nb\"", .controlCharacter, 2),
        (#""\x""#, .invalidEscape, 1),
        (#""\u12G4""#, .invalidEscape, 5),
        (#""\u123""#, .invalidEscape, 6),
        (#""\ud83d""#, .unpairedSurrogate, 1),
        (#""\ud83dx""#, .unpairedSurrogate, 1),
        (#""\ud83d\u0041""#, .unpairedSurrogate, 1),
        (#""\ude00""#, .unpairedSurrogate, 1),
        (#"{"a":1,"a":2}"#, .duplicateKey, 7),
        (#"{"a":{"b":1,"b":1}}"#, .duplicateKey, 12),
        ("\u{FEFF}1", .unexpectedCharacter, 0),
        ("[1]]", .trailingCharacters, 3),
    ])
    func refusesInvalidText(text: String, reason: JSONParseError.Reason, offset: Int) {
        #expect(throws: JSONParseError(reason, at: offset)) { try JSONValue.parse(text) }
    }

    @Test(arguments: [
        ([0x22, 0xC3, 0x22], 2),                 // truncated 2-byte sequence
        ([0x22, 0xC0, 0xAF, 0x22], 1),           // overlong "/"
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 2),     // overlong 3-byte form
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),     // encoded surrogate U+D800
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2), // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1), // invalid lead byte
        ([0x22, 0x80, 0x22], 1),                 // lone continuation byte
        ([0x22, 0xE4, 0xB8, 0x22], 3),           // truncated before the quote
        ([0x22, 0xF0, 0x9F, 0x98], 1),           // truncated at the end of input
    ] as [([UInt8], Int)])
    func refusesInvalidUTF8(bytes: [UInt8], offset: Int) {
        #expect(throws: JSONParseError(.invalidUTF8, at: offset)) { try JSONValue.parse(bytes) }
    }

    @Test func limitsNestingDepth() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try JSONValue.parse(deepest).arrayValue != nil)
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError(.tooDeep, at: 64)) { try JSONValue.parse(tooDeep) }
        let objects = String(repeating: #"{"a":"#, count: 3) + "1" + String(repeating: "}", count: 3)
        #expect(throws: JSONParseError(.tooDeep, at: 10)) { try JSONValue.parse(objects, maxDepth: 2) }
    }

    /// Keys are told apart by their bytes: a precomposed and a decomposed "é" are two keys, in
    /// small objects (a scan) and large ones (a set), as for JavaScript and JSON Schema.
    @Test func keysAreDistinctAsBytes() throws {
        let (precomposed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        let small = try JSONValue.parse("{\"\(precomposed)\":1,\"\(decomposed)\":2}")
        #expect(small.objectValue?.members.map { Array($0.key.utf8) } == [Array(precomposed.utf8), Array(decomposed.utf8)])
        let filler = (0..<20).map { "\"k\($0)\":\($0)" }
        let large = try JSONValue.parse("{" + (filler + ["\"\(precomposed)\":1", "\"\(decomposed)\":2"]).joined(separator: ",") + "}")
        #expect(large.objectValue?.count == 22)
        #expect(throws: JSONParseError.self) { try JSONValue.parse("{" + (filler + ["\"\(precomposed)\":1", "\"caf\\u00e9\":2"]).joined(separator: ",") + "}") }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("{\"\(decomposed)\":1,\"\(decomposed)\":2}") }
    }

    @Test func refusesDuplicatesInLargeObjects() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" } + ["\"k3\":0"]
        let text = "{" + members.joined(separator: ",") + "}"
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        let distinct = "{" + members.dropLast().joined(separator: ",") + "}"
        #expect(try JSONValue.parse(distinct).objectValue?.count == 40)
    }

    @Test func describesTheOffsetWithoutEchoingInput() {
        let error = JSONParseError(.duplicateKey, at: 7)
        #expect(error.description == "invalid JSON at byte 7: duplicate object key")
    }
}
