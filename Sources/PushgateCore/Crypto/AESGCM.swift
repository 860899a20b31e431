internal import COpenSSL

/// AES-256-GCM authenticated encryption (NIST SP 800-38D): 32-byte key, 12-byte nonce,
/// 16-byte tag appended to the ciphertext.
public enum AESGCM {
    /// Key length in bytes.
    public static let keySize = 32
    /// Nonce length in bytes.
    public static let nonceSize = 12
    /// Tag length in bytes.
    public static let tagSize = 16

    private static let cipher = OpenSSLAlgorithm("AES-256-GCM", fetch: EVP_CIPHER_fetch)

    /// Encrypts `plaintext` and authenticates it together with `aad`; returns ciphertext ‖ tag.
    /// A nonce must never be reused with the same key.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8] = []) throws -> [UInt8] {
        let operation = "AES-256-GCM seal"
        try checkSizes(key: key, nonce: nonce, operation: operation)
        return try withContext(operation) { context in
            try OpenSSLCall.check(EVP_EncryptInit_ex2(context, cipher.pointer, key, nonce, nil), operation)
            var length: Int32 = 0
            if !aad.isEmpty {
                try OpenSSLCall.check(EVP_EncryptUpdate(context, nil, &length, aad, try int32(aad.count, operation)), operation)
            }
            var out = [UInt8](repeating: 0, count: plaintext.count + tagSize)
            var written = 0
            try out.withUnsafeMutableBufferPointer { buffer in
                if !plaintext.isEmpty {
                    try OpenSSLCall.check(EVP_EncryptUpdate(context, buffer.baseAddress, &length, plaintext, try int32(plaintext.count, operation)), operation)
                    written = Int(length)
                }
                try OpenSSLCall.check(EVP_EncryptFinal_ex(context, buffer.baseAddress! + written, &length), operation)
                written += Int(length)
                guard written == plaintext.count else {
                    throw CryptoError(operation: operation, message: "unexpected ciphertext length")
                }
                try OpenSSLCall.check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), buffer.baseAddress! + written), operation)
            }
            return out
        }
    }

    /// Checks the tag and decrypts `sealed` (ciphertext ‖ tag). Any change to the ciphertext,
    /// tag, nonce, key or `aad`, or a truncated input, throws; no plaintext is returned then.
    public static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], aad: [UInt8] = []) throws -> [UInt8] {
        let operation = "AES-256-GCM open"
        try checkSizes(key: key, nonce: nonce, operation: operation)
        guard sealed.count >= tagSize else {
            throw CryptoError(operation: operation, message: "input of \(sealed.count) bytes is shorter than the tag")
        }
        let ciphertextCount = sealed.count - tagSize
        return try withContext(operation) { context in
            try OpenSSLCall.check(EVP_DecryptInit_ex2(context, cipher.pointer, key, nonce, nil), operation)
            var length: Int32 = 0
            if !aad.isEmpty {
                try OpenSSLCall.check(EVP_DecryptUpdate(context, nil, &length, aad, try int32(aad.count, operation)), operation)
            }
            var out = [UInt8](repeating: 0, count: ciphertextCount + tagSize)
            var written = 0
            try sealed.withUnsafeBufferPointer { input in
                try out.withUnsafeMutableBufferPointer { buffer in
                    if ciphertextCount > 0 {
                        try OpenSSLCall.check(EVP_DecryptUpdate(context, buffer.baseAddress, &length, input.baseAddress, try int32(ciphertextCount, operation)), operation)
                        written = Int(length)
                    }
                    var tag = Array(input[ciphertextCount...])
                    try OpenSSLCall.check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag), operation)
                    guard EVP_DecryptFinal_ex(context, buffer.baseAddress! + written, &length) == 1 else {
                        OpenSSLCall.discardErrors()
                        // Wipe the unauthenticated plaintext before reporting.
                        buffer.update(repeating: 0)
                        throw CryptoError(operation: operation, message: "authentication failed")
                    }
                    written += Int(length)
                }
            }
            guard written == ciphertextCount else {
                throw CryptoError(operation: operation, message: "unexpected plaintext length")
            }
            return Array(out.prefix(written))
        }
    }

    private static func checkSizes(key: [UInt8], nonce: [UInt8], operation: String) throws {
        guard key.count == keySize else {
            throw CryptoError(operation: operation, message: "key must be \(keySize) bytes, got \(key.count)")
        }
        guard nonce.count == nonceSize else {
            throw CryptoError(operation: operation, message: "nonce must be \(nonceSize) bytes, got \(nonce.count)")
        }
    }

    private static func int32(_ count: Int, _ operation: String) throws -> Int32 {
        guard let value = Int32(exactly: count) else {
            throw CryptoError(operation: operation, message: "input of \(count) bytes is too long")
        }
        return value
    }

    private static func withContext<Result>(_ operation: String, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        try OpenSSLCall.withObject(operation, make: { EVP_CIPHER_CTX_new() }, free: EVP_CIPHER_CTX_free, body)
    }
}
