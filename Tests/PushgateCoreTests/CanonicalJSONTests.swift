import Testing
import PushgateCore

@Suite struct CanonicalJSONTests {
    // protocol/hapi-push.md §11 canonical-vectors
    @Test func everyVectorCanonicalizesByteForByte() throws {
        let cases = try JSONFixtures.cases("vectors/canonical-json.json")
        #expect(cases.count == 5)
        for entry in cases {
            let input = try #require(entry["input"])
            let expected = try #require(entry["canonical"]?.stringValue)
            #expect(input.canonicalized() == expected)
            #expect(input.canonicalBytes() == Array(expected.utf8))
        }
    }

    // protocol/hapi-push.md §11 canonical-escapes
    @Test func escapesOnlyQuotesBackslashesAndControls() {
        let value: JSONValue = "a/b\u{01}\u{1f}\u{7f}\u{2028}😀"
        #expect(value.canonicalized() == "\"a/b\\u0001\\u001f\u{7f}\u{2028}😀\"")
        let named: JSONValue = "\"\\\u{08}\u{0C}\n\r\t\u{00}\u{0B}"
        #expect(named.canonicalized() == #""\"\\\b\f\n\r\t\u0000\u000b""#)
    }

    // protocol/hapi-push.md §11 canonical-utf16-order
    @Test func sortsKeysByUTF16CodeUnits() {
        let keys = ["é", "e", "E", "_", "~", "😀", "～"]
        let object = JSONObject(keys.map { ($0, JSONValue.integer(1)) })
        #expect(JSONValue.object(object).canonicalized() == #"{"E":1,"_":1,"e":1,"~":1,"é":1,"😀":1,"～":1}"#)
        #expect(keys.sorted(by: UTF16Order.precedes) == ["E", "_", "e", "~", "é", "😀", "～"])
    }

    @Test(arguments: [
        ("ab", "abc", true), ("abc", "ab", false), ("a", "a", false), ("", "a", true),
        ("😀", "\u{E000}", true), ("\u{FFFF}", "😀", false), ("😀", "😁", true), ("\u{D7FF}", "😀", true),
        ("x😀", "x\u{FF5E}", true), ("é", "😀", true),
    ])
    func utf16OrderMatchesTheUTF16View(a: String, b: String, expected: Bool) {
        #expect(UTF16Order.precedes(a, b) == expected)
        #expect(a.utf16.lexicographicallyPrecedes(b.utf16) == expected)
    }

    @Test func sortsAtEveryDepthAndKeepsArrayOrder() {
        let value: JSONValue = ["z": [["b": 1, "a": 2], 3, ["d": ["y": nil, "x": true]]], "a": 1.5]
        #expect(value.canonicalized() == #"{"a":1.5,"z":[{"a":2,"b":1},3,{"d":{"x":true,"y":null}}]}"#)
        #expect(value.serialized() == #"{"z":[{"b":1,"a":2},3,{"d":{"y":null,"x":true}}],"a":1.5}"#)
    }
}
