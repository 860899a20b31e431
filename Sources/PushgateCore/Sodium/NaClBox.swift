internal import CSodium

/// NaCl `crypto_box` (Curve25519-XSalsa20-Poly1305) through libsodium: output is the 16-byte
/// Poly1305 tag followed by the encrypted bytes, with no nonce in front.
///
/// - Important: protocol/gateway.md §2.5 — the same construction as tweetnacl's `nacl.box` and
///   libsodium's `crypto_box_easy`; the cipher is libsodium's, never hand-written.
public enum NaClBox {
    public static let publicKeyBytes = 32
    public static let secretKeyBytes = 32
    public static let nonceBytes = 24
    /// The Poly1305 tag in front of every sealed message.
    public static let tagBytes = 16
    /// The precomputed key `k` = HSalsa20(X25519 shared secret, 16 zero bytes).
    public static let sharedKeyBytes = 32

    /// Seals `plaintext` from `senderSecretKey` to `recipientPublicKey` (`crypto_box_easy`):
    /// `plaintext.count + 16` bytes, tag first.
    public static func seal(_ plaintext: [UInt8], nonce: [UInt8], recipientPublicKey: [UInt8],
                            senderSecretKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let operation = "NaCl box seal"
        try Sodium.prepare(operation)
        try check(nonce: nonce, publicKey: recipientPublicKey, secretKey: senderSecretKey, operation)
        guard plaintext.count <= Int.max - tagBytes else {
            throw CryptoError(operation: operation, message: "the plaintext is too long")
        }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagBytes)
        guard crypto_box_easy(&sealed, plaintext, UInt64(plaintext.count), nonce, recipientPublicKey, senderSecretKey) == 0 else {
            throw CryptoError(operation: operation, message: "the public key is of low order")
        }
        return sealed
    }

    /// Opens a box sealed by `senderPublicKey` for `recipientSecretKey` (`crypto_box_open_easy`);
    /// fails when the tag does not verify (compared in constant time by libsodium).
    public static func open(_ sealed: [UInt8], nonce: [UInt8], senderPublicKey: [UInt8],
                            recipientSecretKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let operation = "NaCl box open"
        try Sodium.prepare(operation)
        try check(nonce: nonce, publicKey: senderPublicKey, secretKey: recipientSecretKey, operation)
        guard sealed.count >= tagBytes else {
            throw CryptoError(operation: operation, message: "the box is shorter than its \(tagBytes)-byte tag")
        }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - tagBytes)
        guard crypto_box_open_easy(&plaintext, sealed, UInt64(sealed.count), nonce, senderPublicKey, recipientSecretKey) == 0 else {
            throw CryptoError(operation: operation, message: "the box does not open with these keys (tag mismatch)")
        }
        return plaintext
    }

    /// The precomputed key of a key pair (`crypto_box_beforenm`): HSalsa20 of the X25519 shared secret.
    static func sharedKey(publicKey: [UInt8], secretKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let operation = "NaCl box beforenm"
        try Sodium.prepare(operation)
        try X25519.requireKey(publicKey, operation, "public key")
        try X25519.requireKey(secretKey, operation, "secret key")
        var key = [UInt8](repeating: 0, count: sharedKeyBytes)
        guard crypto_box_beforenm(&key, publicKey, secretKey) == 0 else {
            throw CryptoError(operation: operation, message: "the public key is of low order")
        }
        return key
    }

    private static func check(nonce: [UInt8], publicKey: [UInt8], secretKey: [UInt8], _ operation: String) throws(CryptoError) {
        guard nonce.count == nonceBytes else {
            throw CryptoError(operation: operation, message: "the nonce must be \(nonceBytes) bytes, not \(nonce.count)")
        }
        try X25519.requireKey(publicKey, operation, "public key")
        try X25519.requireKey(secretKey, operation, "secret key")
    }
}
