/// The 16-character id of a gateway host: the first 16 characters of b64url(SHA-256(raw key)).
///
/// - Important: protocol/gateway.md §1 — the hash is over the 32 raw key bytes, not their base64 text.
public enum HostFingerprint {
    /// The fingerprint's length in characters.
    public static let length = 16

    /// The fingerprint of a raw X25519 public key.
    public static func of(publicKey: [UInt8]) -> String {
        String(Base64URL.encode(SHA256.hash(publicKey)).prefix(length))
    }
}
