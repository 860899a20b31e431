/// ECDSA P-256 signatures in IEEE P1363 form (`r ‖ s`, 64 bytes), the form used on the wire.
///
/// - Important: protocol/signed-relay.md §1 — `sig` is exactly 86 chars of unpadded base64url
///   decoding to 64 bytes; DER, padding and the standard alphabet are rejected.
public enum P1363Signature {
    /// Signature length in bytes.
    public static let size = 2 * P256Curve.fieldSize
    /// Length of its unpadded base64url text.
    public static let encodedLength = 86

    /// Strictly decodes a wire `sig`: exactly 86 canonical base64url chars → 64 bytes.
    public static func decode(base64url text: String) throws -> [UInt8] {
        guard text.utf8.count == encodedLength else {
            throw EncodingFormatError(format: "P1363 signature", reason: "must be \(encodedLength) base64url chars, got \(text.utf8.count)")
        }
        return try Base64URL.decode(text)
    }

    /// The low-S form of a 64-byte signature: `s` is replaced by `n − s` when `s > n/2`.
    /// Both forms verify; replay keys use this one so a flipped-`s` twin is the same request.
    /// Signatures with `s` out of range (0 or ≥ n, never valid) are returned unchanged.
    ///
    /// - Important: protocol/signed-relay.md §2 (replay key uses `r‖low-S(s)`).
    public static func lowS(_ signature: [UInt8]) -> [UInt8] {
        precondition(signature.count == size, "a P1363 signature is \(size) bytes")
        let s = Array(signature[P256Curve.fieldSize...])
        guard let flipped = complementIfHigh(s) else { return signature }
        return Array(signature[..<P256Curve.fieldSize]) + flipped
    }

    /// `n − s` when n/2 < s < n, else `nil`. Plain byte arithmetic: `s` is public.
    private static func complementIfHigh(_ s: [UInt8]) -> [UInt8]? {
        let n = P256Curve.order
        guard s.lexicographicallyPrecedes(n), halfOrder.lexicographicallyPrecedes(s) else { return nil }
        var out = [UInt8](repeating: 0, count: s.count)
        var borrow = 0
        for index in stride(from: s.count - 1, through: 0, by: -1) {
            let difference = Int(n[index]) - Int(s[index]) - borrow
            out[index] = UInt8(truncatingIfNeeded: difference)
            borrow = difference < 0 ? 1 : 0
        }
        return out
    }

    /// ⌊n/2⌋, big-endian.
    private static let halfOrder: [UInt8] = {
        var out = P256Curve.order
        var carry: UInt8 = 0
        for index in out.indices {
            let byte = out[index]
            out[index] = byte >> 1 | carry << 7
            carry = byte & 1
        }
        return out
    }()
}
