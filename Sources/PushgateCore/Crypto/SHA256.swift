internal import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL.
public enum SHA256 {
    private static let digest = OpenSSLAlgorithm("SHA256", fetch: EVP_MD_fetch)

    /// The fetched `EVP_MD`, for signing and HMAC.
    static var algorithm: OpaquePointer { digest.pointer }

    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Fails only when OpenSSL cannot allocate; there is no sensible way to go on.
        guard EVP_Digest(bytes, bytes.count, &out, &length, algorithm, nil) == 1, length == 32 else {
            fatalError("\(CryptoError.openSSL("SHA-256"))")
        }
        return out
    }
}
