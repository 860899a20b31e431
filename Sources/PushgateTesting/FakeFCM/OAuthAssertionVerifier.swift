import PushgateCore

/// Judges a token endpoint request as Google does for a service account's jwt-bearer grant:
/// form body, grant type, then the RS256 assertion (signature under the account's public key,
/// `iss`, `scope`, `aud`, and an `iat`/`exp` pair at most an hour apart that covers now).
/// Without credentials only the assertion's form and times are checked.
///
/// - Important: protocol/hapi-push.md §8 steps 1–2 — what the client must send.
struct OAuthAssertionVerifier {
    /// Why the exchange was refused: Google's `{"error","error_description"}` pair.
    struct Refusal: Error, Equatable {
        let error: String
        let description: String
    }

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// How far in the future an `iat` may be (clock skew Google tolerates).
    static let skewSeconds: Int64 = 60

    let credentials: FakeFCM.Credentials?
    let clock: any WallClock

    func check(_ request: FakeHTTP2Request) -> Result<Void, Refusal> {
        guard request.header("content-type")?.hasPrefix("application/x-www-form-urlencoded") == true,
              let form = Self.formFields(request.body) else {
            return .failure(Refusal(error: "invalid_request", description: "Expected a form-encoded body."))
        }
        guard form["grant_type"] == Self.grantType else {
            return .failure(Refusal(error: "unsupported_grant_type", description: "Invalid grant_type."))
        }
        guard let assertion = form["assertion"], let claims = claims(of: assertion) else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT Signature."))
        }
        let now = clock.nowMilliseconds / 1000
        guard claims["iss"]?.stringValue.map({ credentials == nil || $0 == credentials?.clientEmail }) == true,
              claims["aud"]?.stringValue.map({ credentials == nil || $0 == credentials?.audience }) == true,
              claims["scope"]?.stringValue?.split(separator: " ").contains(Substring(OAuthAssertion.firebaseMessagingScope)) == true
        else { return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT: iss, aud or scope not accepted.")) }
        guard case .integer(let issuedAt)? = claims["iat"], case .integer(let expires)? = claims["exp"],
              expires > issuedAt, expires - issuedAt <= 3600, issuedAt <= now + Self.skewSeconds, now < expires else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."))
        }
        return .success(())
    }

    /// The claims of an RS256 assertion: verified when credentials are known, else only parsed.
    private func claims(of assertion: String) -> JSONObject? {
        if let credentials { return JWT.verifyRS256(assertion, publicKeyPEM: credentials.publicKeyPEM)?.claims }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Self.object(parts[0]), header["alg"] == "RS256",
              (try? Base64URL.decode(parts[2]))?.isEmpty == false else { return nil }
        return Self.object(parts[1])
    }

    private static func object(_ segment: String) -> JSONObject? {
        (try? Base64URL.decode(segment)).flatMap { try? JSONValue.parse($0) }?.objectValue
    }

    /// `name=value&…` with `+` and `%XX` decoded; `nil` for a malformed escape.
    static func formFields(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ text: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            switch text[index] {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard index + 2 < text.endIndex, let byte = try? Hex.decode(String(decoding: text[(index + 1)...(index + 2)], as: UTF8.self)) else {
                    return nil
                }
                bytes += byte
                index += 2
            case let byte:
                bytes.append(byte)
            }
            index += 1
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
