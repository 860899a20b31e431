internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
public enum SecureRandom {
    /// `count` random bytes. Stops the process if the generator fails: continuing with weak
    /// randomness (nonces, keys) would be worse than stopping.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        guard RAND_bytes(&out, Int32(count)) == 1 else {
            fatalError("\(CryptoError.openSSL("random bytes"))")
        }
        return out
    }
}
