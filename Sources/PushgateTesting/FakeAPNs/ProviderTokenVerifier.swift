import PushgateCore

/// Judges APNs provider tokens (ES256 JWTs) as APNs does, remembering each distinct token's
/// verdict so a connection that reuses one token pays for parsing and verification once.
///
/// - Important: relay-protocol.md §7 — header `{"alg":"ES256","kid":…}`, claims
///   `{"iss":teamId,"iat":seconds}` with an integer `iat`; a token is expired once `iat` is an
///   hour old. An `iat` more than an hour in the future (milliseconds sent as seconds) is invalid.
///
/// Not thread-safe: each connection owns one.
final class ProviderTokenVerifier {
    /// Tokens remembered before the cache starts over (clients reuse one token for ~50 minutes).
    static let cacheLimit = 64
    static let lifetimeSeconds: Int64 = 3600

    private let clock: any WallClock
    /// Token → its `iat` when acceptable apart from age, or nil when invalid.
    private var verdicts: [String: Int64?] = [:]

    init(clock: any WallClock) {
        self.clock = clock
    }

    func check(_ jwt: String) -> ProviderTokenStatus {
        let issuedAt: Int64?
        if let remembered = verdicts[jwt] {
            issuedAt = remembered
        } else {
            issuedAt = Self.issuedAt(ofWellFormed: jwt)
            if verdicts.count >= Self.cacheLimit { verdicts.removeAll(keepingCapacity: true) }
            verdicts[jwt] = issuedAt
        }
        guard let issuedAt else { return .invalid }
        let now = clock.nowMilliseconds / 1000
        if issuedAt > now + Self.lifetimeSeconds { return .invalid }
        return now - issuedAt < Self.lifetimeSeconds ? .valid : .expired
    }

    /// The `iat` of a structurally valid ES256 provider token, or nil.
    private static func issuedAt(ofWellFormed jwt: String) -> Int64? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let header = object(fromBase64URL: parts[0]),
              let claims = object(fromBase64URL: parts[1]),
              let signature = try? Base64URL.decode(String(parts[2])), signature.count == 64,
              header["alg"] == .string("ES256"), header["kid"]?.stringValue != nil,
              claims["iss"]?.stringValue != nil,
              case .integer(let issuedAt)? = claims["iat"]
        else { return nil }
        return issuedAt
    }

    private static func object(fromBase64URL part: Substring) -> JSONObject? {
        guard let bytes = try? Base64URL.decode(String(part)) else { return nil }
        return (try? JSONValue.parse(bytes))?.objectValue
    }
}
