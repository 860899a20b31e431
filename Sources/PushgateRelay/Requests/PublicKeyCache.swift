import PushgateCore
import Synchronization

/// Parsed host public keys, reused across requests so a busy host costs one parse.
///
/// - Important: the JWK is still checked strictly on every request (exactly `kty crv x y`);
///   only the curve-point parse is cached, keyed by the canonical `x` and `y`.
final class PublicKeyCache: Sendable {
    private let keys = Mutex<[String: P256PublicKey]>([:])
    private let capacity: Int

    init(capacity: Int = 4_096) { self.capacity = capacity }

    /// The key for a request's `publicKeyJwk`, parsing it on first sight.
    func key(for jwk: JSONObject) throws(RelayError) -> P256PublicKey {
        guard jwk.count == 4, jwk["kty"] == .string("EC"), jwk["crv"] == .string("P-256"),
              let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue
        else { throw .invalidRequest }
        let cacheKey = x + "." + y
        if let cached = keys.withLock({ $0[cacheKey] }) { return cached }
        guard let key = try? P256PublicKey(jwk: jwk) else { throw .invalidRequest }
        keys.withLock { keys in
            // Dropping everything when full keeps the bound simple; hot keys come back on their next request.
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[cacheKey] = key
        }
        return key
    }
}
