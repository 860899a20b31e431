internal import COpenSSL

/// An ECDSA P-256 private key: generation, PKCS#8 PEM and JWK import/export, and signing.
///
/// Safe to share between threads: the OpenSSL key and its signing context are never changed
/// after `init`, and each `sign` call works on its own copy of that context.
public final class P256PrivateKey: Sendable {
    /// The matching public key.
    public let publicKey: P256PublicKey
    private let key: EVPKey
    private let signer: ECDSAContextTemplate

    /// Generates a new random key pair. Stops the process if OpenSSL cannot (a broken RNG).
    public convenience init() {
        guard let generated = pg_ec_p256_generate() else {
            fatalError("\(CryptoError.openSSL("P-256 key generation"))")
        }
        do {
            try self.init(validated: EVPKey(taking: generated), operation: "P-256 key generation")
        } catch {
            fatalError("\(error)")
        }
    }

    /// Reads an unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`) holding a P-256 key, such as an
    /// APNs `.p8` file. The embedded public key, if any, must match the private scalar.
    public convenience init(pkcs8PEM pem: String) throws {
        let operation = "P-256 PKCS#8 import"
        let key = try EVPKey(pem: pem, structure: "PrivateKeyInfo", keyType: "EC", selection: EVPKey.keyPairSelection, operation: operation)
        try P256Curve.checkGroup(of: key, operation: operation)
        try OpenSSLCall.withObject(operation, make: { key.withPointer { EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) } }, free: EVP_PKEY_CTX_free) { context in
            guard EVP_PKEY_pairwise_check(context) == 1 else {
                throw CryptoError.openSSL(operation)
            }
        }
        try self.init(validated: key, operation: operation)
    }

    /// Reads a private JWK: `kty` "EC", `crv` "P-256", `x`, `y`, `d` as canonical unpadded
    /// base64url of 32 bytes; `x`, `y` must be the point for `d`. Other members (`ext`,
    /// `key_ops`, `kid`, as WebCrypto exports add) are ignored.
    public convenience init(jwk: JSONObject) throws {
        let operation = "P-256 private JWK import"
        guard case .string("EC")? = jwk["kty"], case .string("P-256")? = jwk["crv"],
              case .string(let x)? = jwk["x"], case .string(let y)? = jwk["y"], case .string(let d)? = jwk["d"] else {
            throw CryptoError(operation: operation, message: "JWK must have kty \"EC\", crv \"P-256\", x, y and d as strings")
        }
        func decode(_ text: String, _ name: String) throws -> [UInt8] {
            guard let bytes = try? Base64URL.decode(text), bytes.count == P256Curve.fieldSize else {
                throw CryptoError(operation: operation, message: "\(name) must be canonical base64url of \(P256Curve.fieldSize) bytes")
            }
            return bytes
        }
        let key = try P256Curve.keyPair(scalar: decode(d, "d"), x: decode(x, "x"), y: decode(y, "y"), operation: operation)
        try self.init(validated: key, operation: operation)
    }

    private init(validated key: EVPKey, operation: String) throws {
        let (x, y) = try P256Curve.coordinates(of: key, operation: operation)
        self.key = key
        signer = try ECDSAContextTemplate(key: key, purpose: .sign, operation: operation)
        publicKey = try P256PublicKey(validKey: P256Curve.publicKey(x: x, y: y, operation: operation), x: x, y: y)
    }

    /// Lends the OpenSSL key to `body` (PushgateTesting signs test certificates with it); the
    /// pointer must not escape it.
    package func withEVPKey<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try key.withPointer(body)
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`). Store it with mode 0600.
    public var pkcs8PEM: String {
        get throws {
            try key.pem(structure: "PrivateKeyInfo", selection: EVPKey.keyPairSelection, operation: "P-256 PKCS#8 export")
        }
    }

    /// The private JWK: `kty`, `crv`, `x`, `y`, `d` in that order. Secret: never log it.
    public var privateJWK: JSONObject {
        get throws {
            let d = try key.integerParameter(OSSL_PKEY_PARAM_PRIV_KEY, width: P256Curve.fieldSize, operation: "P-256 private JWK export")
            var jwk = publicKey.jwk
            jwk["d"] = .string(Base64URL.encode(d))
            return jwk
        }
    }

    /// Signs `message` with ECDSA-SHA256; returns the 64-byte P1363 `r ‖ s` (random nonce,
    /// so two signatures of one message differ).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let operation = "P-256 sign"
        let der = try signer.sign(digest: SHA256.hash(message), operation: operation)
        guard let signature = ECDSASignatureDER.decode(der) else {
            throw CryptoError(operation: operation, message: "OpenSSL returned a signature that is not canonical DER")
        }
        return signature
    }
}
