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
