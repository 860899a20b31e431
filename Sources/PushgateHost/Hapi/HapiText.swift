/// The text helpers of protocol/hapi-push.md §9: lengths, `clip`, `cut`, `clipQ`, `oneLine`, `short`;
/// and `clipBytes`, which the content-free alerts' bodies share.
///
/// - Important: protocol/hapi-push.md §9 — counts are UTF-16 code units (`len16`) or Unicode scalars
///   (`scalars`), as hapi counts them, but every cut falls on a grapheme-cluster boundary, so
///   an emoji or a combined character is never split (Pushgate decision).
enum HapiText {
    /// The number of UTF-16 code units.
    static func len16(_ text: String) -> Int { text.utf16.count }

    /// The number of Unicode scalars.
    static func scalars(_ text: String) -> Int { text.unicodeScalars.count }

    /// For ready, task and summary fields: trimmed; over `n` units → whole graphemes + `...`.
    static func clip(_ text: String, _ n: Int) -> String {
        let trimmed = trim(text)
        if n <= 0 || trimmed.isEmpty { return "" }
        if len16(trimmed) <= n { return trimmed }
        if n <= 3 { return String(repeating: ".", count: n) }
        return trimTrailing(prefix(trimmed, maxCount: n - 3, measure: len16)) + "..."
    }

    /// For tool arguments: untrimmed; over `n` units → whole graphemes + `...`.
    static func cut(_ text: String, _ n: Int) -> String {
        if text.isEmpty { return "" }
        if len16(text) <= n { return text }
        return prefix(text, maxCount: max(0, n - 3), measure: len16) + "..."
    }

    /// For alert bodies: over `n` UTF-8 bytes → whole graphemes + `…` (3 bytes); nothing when
    /// `n` leaves no room for them.
    static func clipBytes(_ text: String, _ n: Int) -> String {
        if text.utf8.count <= n { return text }
        if n <= 3 { return "" }
        return prefix(text, maxCount: n - 3, measure: { $0.utf8.count }) + "\u{2026}"
    }

    /// For input requests: over `n` scalars → whole graphemes, trailing space trimmed, + `…`.
    static func clipQ(_ text: String, _ n: Int) -> String {
        if n <= 0 { return "" }
        if scalars(text) <= n { return text }
        return trimTrailing(prefix(text, maxCount: n - 1, measure: scalars)) + "\u{2026}"
    }

    /// Every run of white space becomes one space; the result is trimmed.
    static func oneLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isSpace(scalar) {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                pendingSpace = false
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `/a/b/c.ts` → `.../b/c.ts`; a path of at most 2 `/`-parts (empty parts kept) as is.
    static func short(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 2 else { return path }
        return ".../\(parts[parts.count - 2])/\(parts[parts.count - 1])"
    }

    /// Leading and trailing white space (JavaScript's `trim` set) removed.
    static func trim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }

    /// Trailing white space removed.
    static func trimTrailing(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[...last])
    }

    /// Whether a string holds only white space (or nothing).
    static func isBlank(_ text: String) -> Bool { text.unicodeScalars.allSatisfy(isSpace) }

    /// JavaScript's white space: Unicode `White_Space` plus U+FEFF.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "\u{FEFF}"
    }

    /// The longest prefix of whole grapheme clusters whose `measure` is at most `maxCount`.
    private static func prefix(_ text: String, maxCount: Int, measure: (String) -> Int) -> String {
        var total = 0
        var end = text.startIndex
        for character in text {
            total += measure(String(character))
            if total > maxCount { break }
            end = text.index(after: end)
        }
        return String(text[..<end])
    }
}
