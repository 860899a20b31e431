import COpenSSL

/// Owns one OpenSSL `EVP_PKEY`.
final class EVPKeyHandle {
    private let pointer: OpaquePointer

    /// A freshly generated P-256 key pair.
    init() throws {
        guard let key = pg_x509_generate_p256_key() else { throw CertificateError(operation: "EVP_EC_gen(P-256)") }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Lends the raw key for the duration of `body`.
    func withPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    /// The private key as PKCS#8 PEM.
    func privateKeyPEM() throws -> String {
        let bio = try MemoryBIO()
        let written = bio.withPointer { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
        guard written == 1 else { throw CertificateError(operation: "PEM_write_bio_PrivateKey") }
        return try bio.contents()
    }
}
