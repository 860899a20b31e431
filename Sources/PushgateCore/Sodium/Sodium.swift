internal import CSodium

/// libsodium's one-time set-up, and the sizes this code assumes checked against the library.
enum Sodium {
    /// `true` once `sodium_init` has run and the box sizes match libsodium's; checked once.
    private static let ready: Bool = {
        guard sodium_init() >= 0 else { return false }
        return Int(crypto_box_publickeybytes()) == NaClBox.publicKeyBytes
            && Int(crypto_box_secretkeybytes()) == NaClBox.secretKeyBytes
            && Int(crypto_box_noncebytes()) == NaClBox.nonceBytes
            && Int(crypto_box_macbytes()) == NaClBox.tagBytes
            && Int(crypto_box_beforenmbytes()) == NaClBox.sharedKeyBytes
            && Int(crypto_scalarmult_bytes()) == X25519.keyBytes
            && Int(crypto_scalarmult_scalarbytes()) == X25519.keyBytes
    }()

    /// Throws when libsodium could not be initialised or disagrees with the sizes used here.
    static func prepare(_ operation: String) throws(CryptoError) {
        guard ready else {
            throw CryptoError(operation: operation, message: "libsodium failed to initialise or has unexpected key sizes")
        }
    }
}
