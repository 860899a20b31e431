/// The ES256 provider authentication token APNs expects as `authorization: bearer <token>`.
///
/// - Important: protocol/signed-relay.md §7 — header `{"alg":"ES256","kid":keyId}`, claims
///   `{"iss":teamId,"iat":seconds}` with `iat` an integer; the signature is P1363 base64url.
public enum APNsProviderToken {
    /// A token for the `.p8` `key` with Apple's `keyId` and `teamId`, issued at `issuedAt`
    /// (seconds since the epoch). Renewal policy belongs to the caller.
    public static func make(key: P256PrivateKey, keyId: String, teamId: String, issuedAt: Int64) -> String {
        let header = JSONObject([("alg", .string("ES256")), ("kid", .string(keyId))])
        let claims = JSONObject([("iss", .string(teamId)), ("iat", .integer(issuedAt))])
        do {
            return try JWT.assemble(header: header, claims: claims, sign: key.sign)
        } catch {
            // Signing with a loaded key fails only when OpenSSL cannot allocate.
            fatalError("APNs provider token: \(error)")
        }
    }
}
