/// Converts P-256 ECDSA signatures between P1363 `r ‖ s` (64 bytes) and the DER
/// `ECDSA-Sig-Value` OpenSSL reads and writes (`SEQUENCE { r INTEGER, s INTEGER }`, SEC 1
/// §C.5), byte by byte: no BIGNUMs, no OpenSSL objects.
///
/// Only canonical DER exists here: OpenSSL re-encodes a signature before verifying it and
/// rejects any other form, and it only ever signs to canonical DER. Every length fits the
/// one-byte short form (at most 33 content bytes per INTEGER, 70 for the SEQUENCE).
enum ECDSASignatureDER {
    /// The longest encoding: two 33-byte INTEGERs with their headers, and the SEQUENCE header.
    static let maxLength = 2 + 2 * (2 + P256Curve.fieldSize + 1)

    private static let sequenceTag: UInt8 = 0x30
    private static let integerTag: UInt8 = 0x02

    /// The DER of a 64-byte `r ‖ s`; `nil` for another size or when `r` or `s` is zero (never a
    /// valid signature). Values ≥ n are encoded as they are and left for OpenSSL to reject.
    static func encode(p1363 signature: [UInt8]) -> [UInt8]? {
        guard signature.count == P1363Signature.size else { return nil }
        var der: [UInt8] = [sequenceTag, 0]
        der.reserveCapacity(maxLength)
        guard appendInteger(signature[..<P256Curve.fieldSize], to: &der),
              appendInteger(signature[P256Curve.fieldSize...], to: &der) else { return nil }
        der[1] = UInt8(der.count - 2)
        return der
    }

    /// The 64-byte `r ‖ s` of a canonical DER signature; `nil` for anything else: other tags,
    /// long-form or wrong lengths, trailing bytes, negative, zero or non-minimal INTEGERs,
    /// values wider than 32 bytes.
    static func decode(_ der: [UInt8]) -> [UInt8]? {
        guard der.count >= 2, der[0] == sequenceTag, der[1] < 0x80, Int(der[1]) == der.count - 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(P1363Signature.size)
        var index = 2
        for _ in 0..<2 {
            guard let magnitude = readInteger(der, at: &index) else { return nil }
            out.append(contentsOf: repeatElement(0, count: P256Curve.fieldSize - magnitude.count))
            out.append(contentsOf: magnitude)
        }
        guard index == der.count else { return nil }
        return out
    }

    /// Appends a big-endian unsigned value as a minimal DER INTEGER: leading zero bytes
    /// dropped, one 0x00 put back when the top bit is set (else it would read as negative).
    /// `false` for zero.
    private static func appendInteger(_ magnitude: ArraySlice<UInt8>, to der: inout [UInt8]) -> Bool {
        guard let first = magnitude.firstIndex(where: { $0 != 0 }) else { return false }
        let significant = magnitude[first...]
        let needsPad = magnitude[first] & 0x80 != 0
        der.append(integerTag)
        der.append(UInt8(significant.count + (needsPad ? 1 : 0)))
        if needsPad { der.append(0) }
        der.append(contentsOf: significant)
        return true
    }

    /// Reads one minimal, positive, non-zero DER INTEGER of at most 32 value bytes at `index`
    /// and moves `index` past it; returns its value bytes without the sign pad.
    private static func readInteger(_ der: [UInt8], at index: inout Int) -> ArraySlice<UInt8>? {
        guard der.count - index >= 2, der[index] == integerTag else { return nil }
        let length = Int(der[index + 1])
        let start = index + 2
        // A 33-byte maximum also rules out the long length form (0x80 and above).
        guard length >= 1, length <= P256Curve.fieldSize + 1, der.count - start >= length else { return nil }
        var content = der[start..<(start + length)]
        index = start + length
        guard content[start] & 0x80 == 0 else { return nil }  // negative
        if content[start] == 0 {
            // A leading 0x00 is allowed only as the pad before a set top bit (this also rejects zero).
            guard length >= 2, content[start + 1] & 0x80 != 0 else { return nil }
            content = content.dropFirst()
        }
        guard content.count <= P256Curve.fieldSize else { return nil }
        return content
    }
}
