internal import COpenSSL

/// HMAC with SHA-256 (RFC 2104) through OpenSSL.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key` (any key length).
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        precondition(key.count <= Int(Int32.max), "HMAC key too long")
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Fails only when OpenSSL cannot allocate; there is no sensible way to go on.
        guard HMAC(SHA256.algorithm, key, Int32(key.count), message, message.count, &out, &length) != nil,
              length == 32 else {
            fatalError("\(CryptoError.openSSL("HMAC-SHA256"))")
        }
        return out
    }
}
