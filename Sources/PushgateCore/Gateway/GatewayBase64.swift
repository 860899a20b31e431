/// The gateway protocol's "b64": standard alphabet, `=` padding, canonical.
///
/// - Important: protocol/gateway.md §2.7 — a value is accepted only if it decodes to the expected
///   number of bytes and re-encodes to the identical text (unused low bits zero).
public enum GatewayBase64 {
    /// The bytes of canonical b64 `text`; with `byteCount`, exactly that many.
    public static func decode(_ text: String, byteCount: Int? = nil) throws(EncodingFormatError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try Base64.decode(text)
        } catch {
            throw EncodingFormatError(format: "base64", reason: "not canonical standard base64 with padding")
        }
        if let byteCount, bytes.count != byteCount {
            throw EncodingFormatError(format: "base64", reason: "decodes to \(bytes.count) bytes, expected \(byteCount)")
        }
        return bytes
    }

    /// Whether `text` has the shape of b64 for exactly `byteCount` bytes (length, alphabet and
    /// padding), whatever its unused low bits: the schema check that comes before the
    /// canonical one.
    public static func hasShape(_ text: String, byteCount: Int) -> Bool {
        let utf8 = Array(text.utf8)
        let padding = (3 - byteCount % 3) % 3
        guard utf8.count == (byteCount + 2) / 3 * 4 else { return false }
        let body = utf8.count - padding
        return utf8[..<body].allSatisfy(isAlphabet) && utf8[body...].allSatisfy { $0 == UInt8(ascii: "=") }
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
