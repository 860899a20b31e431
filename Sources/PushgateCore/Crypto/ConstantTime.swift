internal import COpenSSL

/// Comparisons whose running time does not depend on where secret inputs differ.
public enum ConstantTime {
    /// `true` when `a` and `b` are equal. Lengths are not secret: different lengths return
    /// `false` at once; equal lengths are compared with `CRYPTO_memcmp`.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }
}
