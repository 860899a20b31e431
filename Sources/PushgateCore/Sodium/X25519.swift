internal import CSodium

/// X25519 Diffie-Hellman (RFC 7748) through libsodium's `crypto_scalarmult`.
public enum X25519 {
    /// Public keys, secret keys (raw scalars) and shared secrets are 32 bytes.
    public static let keyBytes = 32

    /// The public key of a raw 32-byte secret scalar (X25519 clamps it itself).
    public static func publicKey(secretKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try Sodium.prepare("X25519 public key")
        try requireKey(secretKey, "X25519 public key", "secret key")
        var out = [UInt8](repeating: 0, count: keyBytes)
        guard crypto_scalarmult_base(&out, secretKey) == 0 else {
            throw CryptoError(operation: "X25519 public key", message: "libsodium refused the secret key")
        }
        return out
    }

    /// X25519(`secretKey`, `publicKey`): the 32-byte shared point before any hashing.
    /// Fails for a low-order public key (an all-zero result), as libsodium does.
    static func sharedSecret(secretKey: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try Sodium.prepare("X25519")
        try requireKey(secretKey, "X25519", "secret key")
        try requireKey(publicKey, "X25519", "public key")
        var out = [UInt8](repeating: 0, count: keyBytes)
        guard crypto_scalarmult(&out, secretKey, publicKey) == 0 else {
            throw CryptoError(operation: "X25519", message: "the public key is of low order")
        }
        return out
    }

    static func requireKey(_ key: [UInt8], _ operation: String, _ role: String) throws(CryptoError) {
        guard key.count == keyBytes else {
            throw CryptoError(operation: operation, message: "the \(role) must be \(keyBytes) bytes, not \(key.count)")
        }
    }
}
