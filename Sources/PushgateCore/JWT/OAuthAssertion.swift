/// The RS256 JWT assertion a service account exchanges for an OAuth 2.0 access token
/// (RFC 7523, Google's `urn:ietf:params:oauth:grant-type:jwt-bearer` flow).
public enum OAuthAssertion {
    /// The scope FCM HTTP v1 requires.
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Lifetime of an assertion in seconds (Google's maximum).
    public static let lifetimeSeconds: Int64 = 3600

    /// An assertion issued at `issuedAt` (seconds since the epoch): header
    /// `{"alg":"RS256","typ":"JWT","kid":private_key_id}` (`kid` only when the account has one),
    /// claims `{"iss":client_email,"scope":scope,"aud":token_uri,"iat":issuedAt,"exp":issuedAt+3600}`.
    ///
    /// - Important: protocol/hapi-push.md §8 step 1 — member order as listed, no `sub` claim.
    public static func make(account: ServiceAccount, issuedAt: Int64, scope: String = firebaseMessagingScope) throws -> String {
        var header = JSONObject([("alg", .string("RS256")), ("typ", .string("JWT"))])
        if let keyId = account.privateKeyId { header["kid"] = .string(keyId) }
        let claims = JSONObject([
            ("iss", .string(account.clientEmail)),
            ("scope", .string(scope)),
            ("aud", .string(account.tokenURI)),
            ("iat", .integer(issuedAt)),
            ("exp", .integer(issuedAt + lifetimeSeconds)),
        ])
        return try JWT.assemble(header: header, claims: claims, sign: account.privateKey.sign)
    }
}
