/// The proof a host returns for a challenge, and the digests the gateway stores instead of
/// proofs and session tokens.
///
/// - Important: protocol/gateway.md §2.6 (proof), §2.8 and §8 (only hashes are stored).
public enum HostProof {
    /// The 28-byte MAC prefix `"orca-push-host-proof/v1" 0x00 "ack" 0x00`.
    public static let messagePrefix = Array("orca-push-host-proof/v1".utf8) + [0] + Array("ack".utf8) + [0]

    /// HMAC-SHA256(key = secret, message = prefix ‖ transcript): 32 bytes.
    public static func compute(secret: [UInt8], transcript: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(key: secret, message: messagePrefix + transcript)
    }

    /// `push_challenges.secret_hash`: b64url(SHA-256(the 32 proof bytes)) — the digest of the
    /// expected proof, never of the secret.
    public static func storedHash(ofProof proof: [UInt8]) -> String {
        Base64URL.encode(SHA256.hash(proof))
    }

    /// `push_sessions.token_hash`: b64url(SHA-256(UTF-8 of the 43-character token text)).
    public static func storedHash(ofSessionToken token: String) -> String {
        Base64URL.encode(SHA256.hash(Array(token.utf8)))
    }

    /// A new session token: 32 random bytes as b64url, 43 characters.
    public static func newSessionToken() -> String {
        Base64URL.encode(SecureRandom.bytes(32))
    }
}
