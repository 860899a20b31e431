@testable import PushgateHost
import Testing

/// protocol/hapi-push.md §9 helpers: every cut counts like hapi and falls on a grapheme boundary.
@Suite struct HapiTextTests {
    @Test func clipTrimsCountsUTF16AndAddsThreeDots() {
        #expect(HapiText.clip("  hello \n", 280) == "hello")
        #expect(HapiText.clip("   ", 10) == "")
        #expect(HapiText.clip("abc", 0) == "")
        #expect(HapiText.clip("abcdef", 3) == "...")
        #expect(HapiText.clip("abcdef", 2) == "..")
        #expect(HapiText.clip("abcdef", 6) == "abcdef")
        #expect(HapiText.clip("abcd efgh", 8) == "abcd...", "trailing white space before the dots is trimmed")
        // 😀 is 2 UTF-16 units: with 3 units for text, "a😀" (3) fits and "a😀😀" (5) does not.
        #expect(HapiText.clip("a😀😀😀", 6) == "a😀...")
    }

    @Test func clipNeverSplitsAGraphemeCluster() {
        let family = "👨‍👩‍👧" // one grapheme, 8 UTF-16 units
        #expect(HapiText.clip("x" + family + "y", 9) == "x...")
        #expect(HapiText.clip("e\u{301}e\u{301}e\u{301}", 5) == "e\u{301}...")
        #expect(HapiText.cut(String(repeating: "😀", count: 40), 60).hasSuffix("😀..."))
        #expect(HapiText.cut(String(repeating: "😀", count: 40), 60).utf16.count == 59)
    }

    @Test func cutKeepsWhiteSpaceAndFloorsAtZero() {
        #expect(HapiText.cut("", 5) == "")
        #expect(HapiText.cut("  ab  ", 6) == "  ab  ")
        #expect(HapiText.cut("ab  cdef", 7) == "ab  ...")
        #expect(HapiText.cut("abcdef", 2) == "...")
    }

    @Test func clipQCountsScalarsAndUsesTheEllipsis() {
        #expect(HapiText.clipQ("abc", 0) == "")
        #expect(HapiText.clipQ("😀😀😀", 3) == "😀😀😀")
        #expect(HapiText.clipQ("ab cdef", 4) == "ab\u{2026}")
        #expect(HapiText.clipQ("e\u{301}e\u{301}", 3) == "e\u{301}\u{2026}")
        #expect(HapiText.clipQ("ab", 1) == "\u{2026}")
    }

    @Test func oneLineAndShort() {
        #expect(HapiText.oneLine("  a \n\t b\u{3000}c  ") == "a b c")
        #expect(HapiText.oneLine("") == "")
        #expect(HapiText.short("/a/b/c.ts") == ".../b/c.ts")
        #expect(HapiText.short("b/c.ts") == "b/c.ts")
        #expect(HapiText.short("/c.ts") == "/c.ts")
        #expect(HapiText.short("a//c") == ".../" + "/c")
    }
}
