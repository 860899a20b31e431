/// The outcome of checking an APNs provider token (the JWT after `bearer `).
public enum ProviderTokenStatus: Sendable, Equatable {
    /// Signature, `alg`, `kid`, `iss` and `iat` all acceptable.
    case valid
    /// Malformed, wrong key, wrong `kid`/`iss`, or bad signature → 403 `InvalidProviderToken`.
    case invalid
    /// `iat` more than an hour old → 403 `ExpiredProviderToken`.
    case expired
}
