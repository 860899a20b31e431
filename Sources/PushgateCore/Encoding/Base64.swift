/// Standard-alphabet base64 (RFC 4648 §4), strict and canonical.
public enum Base64 {
    /// Encodes `bytes` with `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.standard.encode(bytes, padded: true)
    }

    /// Decodes canonical standard base64: no whitespace, zero unused bits, correct length.
    /// With `requirePadding: false` the `=` padding may be left out (if present it must be right).
    public static func decode(_ text: String, requirePadding: Bool = true) throws -> [UInt8] {
        try Base64Codec.standard.decode(text, padding: requirePadding ? .required : .optional)
    }
}

/// Unpadded base64url (RFC 4648 §5), strict and canonical, as used in JWKs, JWTs and `sig`.
///
/// - Important: protocol/signed-relay.md §1 — keys and signatures must be canonical unpadded base64url.
public enum Base64URL {
    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.url.encode(bytes, padded: false)
    }

    /// Decodes canonical unpadded base64url; `=`, `+`, `/`, whitespace and non-zero unused
    /// bits are errors.
    public static func decode(_ text: String) throws -> [UInt8] {
        try Base64Codec.url.decode(text, padding: .forbidden)
    }
}

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

/// One base64 alphabet with strict, canonical encode and decode (RFC 4648 §4 and §5).
///
/// Strict means: only alphabet characters (no whitespace), a length that some byte count
/// produces, padding exactly where the caller's rule says, and zero unused bits in the last
/// character. Together these make the decoding canonical: the bytes re-encode to the same text.
struct Base64Codec: Sendable {
    /// Whether `=` padding must, may or must not be present.
    enum Padding: Sendable {
        case required, optional, forbidden
    }

    let name: String
    private let alphabet: [UInt8]
    private let values: [UInt8]

    private static let invalid: UInt8 = 0xFF

    /// The standard alphabet (`+` `/`).
    static let standard = Base64Codec(name: "base64", last2: "+/")
    /// The URL and filename safe alphabet (`-` `_`).
    static let url = Base64Codec(name: "base64url", last2: "-_")

    private init(name: String, last2: String) {
        self.name = name
        alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + Array(last2.utf8)
        var values = [UInt8](repeating: Self.invalid, count: 256)
        for (index, char) in alphabet.enumerated() { values[Int(char)] = UInt8(index) }
        self.values = values
    }

    func encode(_ bytes: [UInt8], padded: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            appendChars(of: chunk, count: 4, to: &out)
            index += 3
        }
        switch bytes.count - index {
        case 1:
            appendChars(of: UInt32(bytes[index]) << 16, count: 2, to: &out)
            if padded { out += [0x3D, 0x3D] }
        case 2:
            appendChars(of: UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8, count: 3, to: &out)
            if padded { out.append(0x3D) }
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func appendChars(of chunk: UInt32, count: Int, to out: inout [UInt8]) {
        for position in 0..<count {
            out.append(alphabet[Int((chunk >> (18 - 6 * UInt32(position))) & 0x3F)])
        }
    }

    func decode(_ text: String, padding: Padding) throws -> [UInt8] {
        var text = text
        return try text.withUTF8 { try decode(utf8: $0, padding: padding) }
    }

    private func decode(utf8 input: UnsafeBufferPointer<UInt8>, padding: Padding) throws -> [UInt8] {
        var dataCount = input.count
        while dataCount > 0, input[dataCount - 1] == 0x3D, input.count - dataCount < 2 { dataCount -= 1 }
        let padCount = input.count - dataCount
        let remainder = dataCount % 4
        guard remainder != 1 else { throw error("length \(input.count) is not a whole number of bytes") }
        let expectedPad = remainder == 0 ? 0 : 4 - remainder
        switch (padding, padCount) {
        case (.forbidden, 1...):
            throw error("padding `=` is not allowed")
        case (.required, _) where padCount != expectedPad,
             (.optional, 1...) where padCount != expectedPad:
            throw error("wrong padding")
        default:
            break
        }

        var out: [UInt8] = []
        out.reserveCapacity(dataCount / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<dataCount {
            let value = values[Int(input[index])]
            guard value != Self.invalid else { throw error("character outside the alphabet at offset \(index)") }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, else two texts would decode to the same bytes.
        guard accumulator == 0 else { throw error("non-zero unused bits in the last character") }
        return out
    }

    private func error(_ reason: String) -> EncodingFormatError {
        EncodingFormatError(format: name, reason: reason)
    }
}
