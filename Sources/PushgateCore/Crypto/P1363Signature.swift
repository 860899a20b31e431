import COpenSSL

/// ECDSA P-256 signatures in IEEE P1363 form (`r ‖ s`, 64 bytes), the form used on the wire,
/// and their conversion to the DER form OpenSSL verifies.
///
/// - Important: relay-protocol.md §1 — `sig` is exactly 86 chars of unpadded base64url
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
    /// - Important: relay-protocol.md §2 (replay key uses `r‖low-S(s)`).
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

    /// `r ‖ s` → DER `ECDSA-Sig-Value`, written into a buffer lent to `body`.
    static func withDER<Result>(_ signature: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard signature.count == size, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(signature, Int32(P256Curve.fieldSize), nil) else { return nil }
        guard let s = signature.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + P256Curve.fieldSize, Int32(P256Curve.fieldSize), nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {  // takes ownership of r and s on success
            BN_free(r)
            BN_free(s)
            return nil
        }
        // Two 33-byte INTEGERs and the SEQUENCE header: at most 72 bytes.
        var der = [UInt8](repeating: 0, count: 72)
        let length = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard i2d_ECDSA_SIG(sig, nil) <= Int32(buffer.count) else { return -1 }
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        guard length > 0 else { return nil }
        return der.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<Int(length)])) }
    }

    /// DER `ECDSA-Sig-Value` (what OpenSSL signs to) → `r ‖ s`.
    static func fromDER(_ der: [UInt8], operation: String) throws -> [UInt8] {
        let sig: OpaquePointer = try der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { throw CryptoError.openSSL(operation) }
            return sig
        }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var out = [UInt8](repeating: 0, count: size)
        let width = Int32(P256Curve.fieldSize)
        let written = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, width) == width && BN_bn2binpad(s, buffer.baseAddress! + P256Curve.fieldSize, width) == width
        }
        guard written else { throw CryptoError(operation: operation, message: "signature component too large") }
        return out
    }
}
