import PushgateCore
import Synchronization

/// Parsed host public keys, reused across requests so a busy host costs one parse; a key that
/// has verified `tables.threshold` requests gets its own precomputed table (P256TableBudget),
/// which halves the cost of its later verifications.
///
/// - Important: the JWK is still checked strictly on every request (exactly `kty crv x y`);
///   only the curve-point parse is cached, keyed by the canonical `x` and `y`.
final class PublicKeyCache: Sendable {
    private let keys = Mutex<[String: P256PublicKey]>([:])
    private let capacity: Int
    private let tables: P256TableBudget

    /// At most 32 tables (about 5 MiB); a table costs about as much to build as 350
    /// verifications and saves half of each, so a key earns one after 1 024.
    init(capacity: Int = 4_096, tables: P256TableBudget = P256TableBudget(maxTables: 32, threshold: 1_024)) {
        self.capacity = capacity
        self.tables = tables
    }

    /// The key for a request's `publicKeyJwk`, parsing it on first sight; `nil` when the
    /// coordinates are well encoded but name no point of P-256. A JWK of other members, or a
    /// coordinate that is not canonical base64url of 32 bytes, is `invalid_request`: a schema
    /// states those, not the curve (docs/relay.md "Signed requests").
    func key(for jwk: JSONObject) throws(RelayError) -> P256PublicKey? {
        guard jwk.count == 4, jwk["kty"] == .string("EC"), jwk["crv"] == .string("P-256"),
              let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue,
              P256PublicKey.isCoordinateEncoding(x), P256PublicKey.isCoordinateEncoding(y)
        else { throw .invalidRequest }
        let cacheKey = x + "." + y
        if let cached = keys.withLock({ $0[cacheKey] }) { return cached }
        guard let key = try? P256PublicKey(jwk: jwk, tables: tables) else { return nil }
        keys.withLock { keys in
            // Dropping everything when full keeps the bound simple; hot keys come back on their next request.
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[cacheKey] = key
        }
        return key
    }
}
