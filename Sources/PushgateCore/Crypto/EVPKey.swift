internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY`, frees it in `deinit`, and lends it only inside closures.
///
/// `@unchecked Sendable`: the key is never mutated after `init`, and OpenSSL allows concurrent
/// use of an unmodified `EVP_PKEY` when each thread uses its own `EVP_PKEY_CTX` / `EVP_MD_CTX`
/// (openssl-threads(7)); every operation here creates its own context per call.
final class EVPKey: @unchecked Sendable {
    private let pointer: OpaquePointer

    /// Selection for public-key data with its domain parameters (`EVP_PKEY_PUBLIC_KEY`).
    static let publicSelection = OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY
    /// Selection for a full key pair (`EVP_PKEY_KEYPAIR`).
    static let keyPairSelection = OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_KEYPAIR

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Decodes one PEM key of `structure` (`PrivateKeyInfo`, `SubjectPublicKeyInfo`) and
    /// `keyType` (`EC`, `RSA`). Other PEM types, including encrypted keys, are rejected.
    convenience init(pem: String, structure: String, keyType: String, selection: Int32, operation: String) throws {
        // The decoder keeps these addresses and uses them during decoding, so they must be stable.
        let slot = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
        slot.initialize(to: nil)
        defer { slot.deallocate() }
        try OpenSSLCall.withCStrings(["PEM", structure, keyType]) { names in
            try OpenSSLCall.withObject(operation, make: {
                OSSL_DECODER_CTX_new_for_pkey(slot, names[0], names[1], names[2], selection, nil, nil)
            }, free: OSSL_DECODER_CTX_free) { decoder in
                var bytes = Array(pem.utf8)
                defer { bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
                try bytes.withUnsafeBufferPointer { buffer in
                    var data = buffer.baseAddress
                    var length = buffer.count
                    try OpenSSLCall.check(OSSL_DECODER_from_data(decoder, &data, &length), operation)
                }
            }
        }
        guard let key = slot.pointee else { throw CryptoError.openSSL(operation) }
        self.init(taking: key)
    }

    /// Builds a key of algorithm `name` (`EC`, `RSA`) from parameters (`EVP_PKEY_fromdata`).
    convenience init(fromData name: String, selection: Int32, parameters: [KeyParameter], operation: String) throws {
        let key: OpaquePointer = try OpenSSLCall.withCStrings([name]) { names in
            try OpenSSLCall.withObject(operation, make: { EVP_PKEY_CTX_new_from_name(nil, names[0], nil) }, free: EVP_PKEY_CTX_free) { context in
                try OpenSSLCall.check(EVP_PKEY_fromdata_init(context), operation)
                return try KeyParameter.withArray(parameters) { array in
                    var key: OpaquePointer?
                    try OpenSSLCall.check(EVP_PKEY_fromdata(context, &key, selection, array), operation)
                    guard let key else { throw CryptoError.openSSL(operation) }
                    return key
                }
            }
        }
        self.init(taking: key)
    }

    /// Lends the `EVP_PKEY` to `body`; the pointer must not escape it.
    func withPointer<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try body(pointer)
    }

    /// Encodes the key as PEM with `structure` (`PrivateKeyInfo` for PKCS#8, `SubjectPublicKeyInfo`).
    func pem(structure: String, selection: Int32, operation: String) throws -> String {
        // The encoder keeps the type and structure addresses until it has written.
        try OpenSSLCall.withCStrings(["PEM", structure]) { names in
            try OpenSSLCall.withObject(operation, make: {
                OSSL_ENCODER_CTX_new_for_pkey(pointer, selection, names[0], names[1], nil)
            }, free: OSSL_ENCODER_CTX_free) { encoder in
                var data: UnsafeMutablePointer<UInt8>?
                var length = 0
                try OpenSSLCall.check(OSSL_ENCODER_to_data(encoder, &data, &length), operation)
                guard let data else { throw CryptoError.openSSL(operation) }
                defer { pg_openssl_clear_free(data, length) }
                return String(decoding: UnsafeBufferPointer(start: data, count: length), as: UTF8.self)
            }
        }
    }

    /// A big-number parameter (`OSSL_PKEY_PARAM_*`) as exactly `width` big-endian bytes.
    func integerParameter(_ name: String, width: Int, operation: String) throws -> [UInt8] {
        var number: OpaquePointer?
        try OpenSSLCall.check(EVP_PKEY_get_bn_param(pointer, name, &number), operation)
        guard let number else { throw CryptoError.openSSL(operation) }
        defer { BN_clear_free(number) }
        var out = [UInt8](repeating: 0, count: width)
        guard BN_bn2binpad(number, &out, Int32(width)) == Int32(width) else {
            throw CryptoError(operation: operation, message: "\(name) does not fit in \(width) bytes")
        }
        return out
    }

    /// A UTF-8 string parameter, e.g. the EC group name.
    func stringParameter(_ name: String, operation: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        try OpenSSLCall.check(EVP_PKEY_get_utf8_string_param(pointer, name, &buffer, buffer.count, &length), operation)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Signs `message` with this private key and SHA-256; returns OpenSSL's signature encoding
    /// (DER `ECDSA-Sig-Value` for EC, PKCS#1 v1.5 for RSA).
    func signSHA256(_ message: [UInt8], operation: String) throws -> [UInt8] {
        try OpenSSLCall.withObject(operation, make: { EVP_MD_CTX_new() }, free: EVP_MD_CTX_free) { context in
            try OpenSSLCall.check(EVP_DigestSignInit(context, nil, SHA256.algorithm, nil, pointer), operation)
            var length = Int(EVP_PKEY_get_size(pointer))
            var signature = [UInt8](repeating: 0, count: length)
            try OpenSSLCall.check(EVP_DigestSign(context, &signature, &length, message, message.count), operation)
            return Array(signature.prefix(length))
        }
    }

    /// Verifies an OpenSSL-encoded signature over `message` with SHA-256 (RSA PKCS#1 v1.5 or
    /// ECDSA). Any failure is `false`.
    func verifySHA256(signature: UnsafeBufferPointer<UInt8>, message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else {
            OpenSSLCall.discardErrors()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        let valid = EVP_DigestVerifyInit(context, nil, SHA256.algorithm, nil, pointer) == 1
            && EVP_DigestVerify(context, signature.baseAddress, signature.count, message, message.count) == 1
        if !valid { OpenSSLCall.discardErrors() }
        return valid
    }
}
