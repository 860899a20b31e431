internal import COpenSSL

/// An `EVP_PKEY_CTX` set up once for ECDSA with one P-256 key over a SHA-256 digest, copied
/// for each signature or verification instead of set up again: the setup fetches the key
/// manager and the signature algorithm by name (about 17 k instructions), a copy and its free
/// cost a few allocations and reference counts (about 0.9 k).
///
/// `@unchecked Sendable`, and why concurrent calls are safe: OpenSSL forbids using one
/// `EVP_PKEY_CTX` in two threads at once (EVP_PKEY_CTX_new(3)), and openssl-threads(7) allows
/// concurrent use of an object only through calls that do not modify it. So the template
/// itself never signs or verifies: after `init` it is only ever passed to `EVP_PKEY_CTX_dup`,
/// which takes it as `const` and only reads it — it takes atomic references on the key, key
/// manager and algorithm and copies the ECDSA provider state — and each call signs or
/// verifies with its own copy, then frees it. The template holds its own reference on the key.
final class ECDSAContextTemplate: @unchecked Sendable {
    /// The operation a template is initialised for; it can do only that one.
    enum Purpose {
        case sign
        case verify
    }

    private let pointer: OpaquePointer
    private let purpose: Purpose

    /// Initialises a context on `key` for `purpose` with SHA-256 as the digest, so a digest of
    /// any other length is refused.
    init(key: EVPKey, purpose: Purpose, operation: String) throws {
        guard let context = key.withPointer({ EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) }) else {
            throw CryptoError.openSSL(operation)
        }
        do {
            try OpenSSLCall.check(purpose == .sign ? EVP_PKEY_sign_init(context) : EVP_PKEY_verify_init(context), operation)
            try OpenSSLCall.check(EVP_PKEY_CTX_set_signature_md(context, SHA256.algorithm), operation)
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        pointer = context
        self.purpose = purpose
    }

    deinit { EVP_PKEY_CTX_free(pointer) }

    /// Signs a 32-byte SHA-256 `digest`; returns OpenSSL's DER `ECDSA-Sig-Value` (random nonce).
    func sign(digest: [UInt8], operation: String) throws -> [UInt8] {
        precondition(purpose == .sign, "a verification template cannot sign")
        return try OpenSSLCall.withObject(operation, make: { EVP_PKEY_CTX_dup(pointer) }, free: EVP_PKEY_CTX_free) { context in
            var der = [UInt8](repeating: 0, count: ECDSASignatureDER.maxLength)
            var length = der.count
            try OpenSSLCall.check(EVP_PKEY_sign(context, &der, &length, digest, digest.count), operation)
            return Array(der.prefix(length))
        }
    }

    /// `true` when `der` is a valid DER signature of the 32-byte SHA-256 `digest`. Any failure,
    /// including a failed copy, is `false`.
    func verify(der: [UInt8], digest: [UInt8]) -> Bool {
        precondition(purpose == .verify, "a signing template cannot verify")
        guard let context = EVP_PKEY_CTX_dup(pointer) else {
            OpenSSLCall.discardErrors()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        let valid = EVP_PKEY_verify(context, der, der.count, digest, digest.count) == 1
        if !valid { OpenSSLCall.discardErrors() }
        return valid
    }
}
