import PushgateCore

/// Judges APNs provider tokens (ES256 JWTs) as APNs does, remembering each distinct token's
/// verdict so a client that reuses one token pays for parsing and verification once.
/// Without credentials it checks only the form (for clients whose key the fake was not given).
///
/// - Important: protocol/signed-relay.md §7 — header `{"alg":"ES256","kid":…}`, claims
///   `{"iss":teamId,"iat":seconds}` with an integer `iat`; a token is expired once `iat` is an
///   hour old. An `iat` more than an hour in the future (milliseconds sent as seconds) is invalid.
///
/// Not thread-safe: the fake's I/O thread owns it.
final class ProviderTokenVerifier {
    /// Tokens remembered before the cache starts over (clients reuse one token for ~50 minutes).
    static let cacheLimit = 64
    static let lifetimeSeconds: Int64 = 3600

    private let credentials: FakeAPNs.ProviderCredentials?
    private let clock: any WallClock
    /// Token → its `iat` when acceptable apart from age, or nil when invalid.
    private var verdicts: [String: Int64?] = [:]

    /// Checks signature, `kid` and `iss` against `credentials`; without them, only the token's form.
    init(credentials: FakeAPNs.ProviderCredentials?, clock: any WallClock) {
        self.credentials = credentials
        self.clock = clock
    }

    func check(_ jwt: String) -> ProviderTokenStatus {
        let issuedAt: Int64?
        if let remembered = verdicts[jwt] {
            issuedAt = remembered
        } else {
            issuedAt = self.issuedAt(of: jwt)
            if verdicts.count >= Self.cacheLimit { verdicts.removeAll(keepingCapacity: true) }
            verdicts[jwt] = issuedAt
        }
        guard let issuedAt else { return .invalid }
        let now = clock.nowMilliseconds / 1000
        if issuedAt > now + Self.lifetimeSeconds { return .invalid }
        return now - issuedAt < Self.lifetimeSeconds ? .valid : .expired
    }

    /// The `iat` of an acceptable token (age aside), or nil.
    private func issuedAt(of jwt: String) -> Int64? {
        let header: JSONObject
        let claims: JSONObject
        if let credentials {
            guard let parts = JWT.verifyES256(jwt, publicKey: credentials.publicKey),
                  parts.header["kid"] == .string(credentials.keyId),
                  parts.claims["iss"] == .string(credentials.teamId) else { return nil }
            (header, claims) = parts
        } else {
            guard let parts = JWT.unverifiedES256(jwt) else { return nil }
            (header, claims) = parts
        }
        guard header["kid"]?.stringValue != nil, claims["iss"]?.stringValue != nil,
              case .integer(let issuedAt)? = claims["iat"] else { return nil }
        return issuedAt
    }
}

/// The outcome of checking an APNs provider token (the JWT after `bearer `).
public enum ProviderTokenStatus: Sendable, Equatable {
    /// Signature, `alg`, `kid`, `iss` and `iat` all acceptable.
    case valid
    /// Malformed, wrong key, wrong `kid`/`iss`, or bad signature → 403 `InvalidProviderToken`.
    case invalid
    /// `iat` more than an hour old → 403 `ExpiredProviderToken`.
    case expired
}
