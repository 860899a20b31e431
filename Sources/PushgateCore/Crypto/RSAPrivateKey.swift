internal import COpenSSL

/// An RSA private key for RS256 (RSASSA-PKCS1-v1_5 with SHA-256), e.g. a Google service
/// account's `private_key`.
///
/// Safe to share between threads: the OpenSSL key is never changed after `init`, and each
/// `sign` call uses its own OpenSSL context.
public final class RSAPrivateKey: Sendable {
    /// The smallest modulus accepted, in bits.
    public static let minimumBits = 2048
    private let key: EVPKey

    /// Reads an unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`) holding an RSA key of at least
    /// ``minimumBits`` bits.
    public init(pkcs8PEM pem: String) throws {
        let operation = "RSA PKCS#8 import"
        key = try EVPKey(pem: pem, structure: "PrivateKeyInfo", keyType: "RSA", selection: EVPKey.keyPairSelection, operation: operation)
        let bits = key.withPointer { EVP_PKEY_get_bits($0) }
        guard bits >= Self.minimumBits else {
            throw CryptoError(operation: operation, message: "\(bits)-bit key is shorter than \(Self.minimumBits) bits")
        }
    }

    /// The public half as PEM `SubjectPublicKeyInfo` (`BEGIN PUBLIC KEY`), for ``JWT/verifyRS256(_:publicKeyPEM:)``.
    public var publicKeyPEM: String {
        get throws {
            try key.pem(structure: "SubjectPublicKeyInfo", selection: EVPKey.publicSelection, operation: "RSA public key export")
        }
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `message` (deterministic).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try key.signSHA256(message, operation: "RSA sign")
    }
}
