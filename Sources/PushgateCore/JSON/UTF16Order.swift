/// Orders strings by their UTF-16 code units, as JavaScript's default sort does.
///
/// - Important: canonical JSON keys (protocol/hapi-push.md §2 rule 1) and the tokens of signed
///   messages (protocol/signed-relay.md §1) are sorted this way, not in Unicode scalar order.
public enum UTF16Order {
    /// Whether `a` sorts before `b` (a prefix sorts first).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        if let fast = a.utf8.withContiguousStorageIfAvailable({ aBytes in
            b.utf8.withContiguousStorageIfAvailable { bBytes in precedes(aBytes, bBytes) }
        }), let result = fast {
            return result
        }
        return a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// Compares UTF-8 bytes, which give code point order; that equals UTF-16 order except
    /// when a supplementary character (lead byte F0–F4, a surrogate pair in UTF-16) meets
    /// one in U+E000–U+FFFF (lead byte EE or EF), which UTF-16 places after the pair.
    private static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(a.count, b.count)
        var index = 0
        while index < common, a[index] == b[index] { index += 1 }
        if index == common { return a.count < b.count }
        let x = a[index], y = b[index]
        // The bytes before `index` agree, so `x` and `y` are both lead bytes, or both
        // continuation bytes (0x80–0xBF) under one lead byte, where byte order holds.
        if x >= 0xF0 && (y == 0xEE || y == 0xEF) { return true }
        if y >= 0xF0 && (x == 0xEE || x == 0xEF) { return false }
        return x < y
    }
}
