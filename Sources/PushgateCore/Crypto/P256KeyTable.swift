internal import COpenSSL

/// One P-256 public key's fixed-base table: a copy of the P-256 group whose generator is the
/// key's point, precomputed, so that verification is two fixed-base multiplications instead of
/// one fixed-base and one variable-base (ecdsa_shim.h). Holds a place in its budget until freed.
///
/// `@unchecked Sendable`: after `init` both groups are only read (`EC_POINT_mul` and the other
/// calls take them as `const`), which openssl-threads(7) allows from several threads at once.
final class P256KeyTable: @unchecked Sendable {
    private let group: OpaquePointer
    private let budget: P256TableBudget

    /// The table for the point (`x`, `y`), or `nil` when the budget has no place left or the
    /// table cannot be built.
    init?(x: [UInt8], y: [UInt8], budget: P256TableBudget) {
        precondition(x.count == P256Curve.fieldSize && y.count == P256Curve.fieldSize)
        guard budget.reserve() else { return nil }
        guard let group = pg_p256_key_group_new(x, y) else {
            OpenSSLCall.discardErrors()
            budget.release()
            return nil
        }
        self.group = group
        self.budget = budget
    }

    deinit {
        pg_p256_key_group_free(group)
        budget.release()
    }

    /// `true` when the 64-byte `signature` (`r ‖ s`) is valid for the 32-byte `digest`.
    func verify(signature: [UInt8], digest: [UInt8]) -> Bool {
        precondition(signature.count == 2 * P256Curve.fieldSize && digest.count == 32)
        let valid = pg_p256_verify_with_table(StandardGroup.shared.pointer, group, digest, signature) == 1
        if !valid { OpenSSLCall.discardErrors() }
        return valid
    }

    /// The standard P-256 group, whose generator uses OpenSSL's built-in table; only read.
    private final class StandardGroup: @unchecked Sendable {
        static let shared = StandardGroup()
        let pointer: OpaquePointer

        private init() {
            // Fails only when OpenSSL cannot allocate; there is no sensible way to go on.
            guard let group = pg_p256_group_new() else { fatalError("\(CryptoError.openSSL("P-256 group"))") }
            pointer = group
        }
    }
}
