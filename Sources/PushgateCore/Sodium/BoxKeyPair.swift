internal import CSodium

/// An X25519 key pair for NaCl `crypto_box`: 32-byte public key and 32-byte raw secret scalar.
public struct BoxKeyPair: Sendable {
    public let publicKey: [UInt8]
    /// The raw secret scalar. Never log or store it.
    public let secretKey: [UInt8]

    /// A fresh random key pair (`crypto_box_keypair`).
    public static func generate() throws(CryptoError) -> BoxKeyPair {
        try Sodium.prepare("X25519 key generation")
        var publicKey = [UInt8](repeating: 0, count: NaClBox.publicKeyBytes)
        var secretKey = [UInt8](repeating: 0, count: NaClBox.secretKeyBytes)
        guard crypto_box_keypair(&publicKey, &secretKey) == 0 else {
            throw CryptoError(operation: "X25519 key generation", message: "crypto_box_keypair failed")
        }
        return BoxKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The pair of a known secret scalar (its public key is derived).
    public init(secretKey: [UInt8]) throws(CryptoError) {
        self.init(publicKey: try X25519.publicKey(secretKey: secretKey), secretKey: secretKey)
    }

    private init(publicKey: [UInt8], secretKey: [UInt8]) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}
