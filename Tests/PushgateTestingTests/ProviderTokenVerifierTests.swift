import PushgateCore
import Testing
@testable import PushgateTesting
import PushgateTestSupport

@Suite(.hangLimit(.minutes(1))) struct ProviderTokenVerifierTests {
    let vector: TestFixtures.ProviderToken
    let credentials: FakeAPNs.ProviderCredentials
    let clock: ManualClock

    init() throws {
        vector = try TestFixtures.providerToken()
        credentials = try FakeAPNs.ProviderCredentials(p8PEM: vector.p8PEM, keyId: vector.keyId, teamId: vector.teamId)
        clock = ManualClock(milliseconds: vector.issuedAt * 1000)
    }

    /// A token shaped like APNs wants, with the given parts, signed by `key`.
    static func token(key: P256PrivateKey, header: JSONObject, claims: JSONObject) throws -> String {
        let input = Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + Base64URL.encode(JSONValue.object(claims).serializedBytes())
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    @Test func fixtureTokenIsValidForItsHourThenExpired() {
        let verifier = ProviderTokenVerifier(credentials: credentials, clock: clock)
        #expect(verifier.check(vector.validJWT) == .valid)
        clock.advance(milliseconds: 3_599_000)
        #expect(verifier.check(vector.validJWT) == .valid)
        clock.advance(milliseconds: 1000)
        #expect(verifier.check(vector.validJWT) == .expired)
    }

    @Test func wrongKeyIdTeamOrSigningKeyIsInvalid() throws {
        let key = try P256PrivateKey(pkcs8PEM: vector.p8PEM)
        let other = P256PrivateKey()
        let verifier = ProviderTokenVerifier(credentials: credentials, clock: clock)
        let claims: JSONObject = ["iss": .string(vector.teamId), "iat": .integer(vector.issuedAt)]
        let header: JSONObject = ["alg": "ES256", "kid": .string(vector.keyId)]
        #expect(verifier.check(try Self.token(key: key, header: header, claims: claims)) == .valid)
        #expect(verifier.check(try Self.token(key: other, header: header, claims: claims)) == .invalid)
        #expect(verifier.check(try Self.token(key: key, header: ["alg": "ES256", "kid": "OTHERKEY01"], claims: claims)) == .invalid)
        #expect(verifier.check(try Self.token(key: key, header: header, claims: ["iss": "OTHERTEAM1", "iat": .integer(vector.issuedAt)])) == .invalid)
        #expect(verifier.check(try Self.token(key: key, header: header, claims: ["iss": .string(vector.teamId), "iat": .string("\(vector.issuedAt)")])) == .invalid)
        #expect(verifier.check(try Self.token(key: key, header: header, claims: ["iss": .string(vector.teamId), "iat": .integer(vector.issuedAt * 1000)])) == .invalid)
        let tampered = String(vector.validJWT.dropLast(2)) + (vector.validJWT.hasSuffix("AA") ? "BA" : "AA")
        #expect(verifier.check(tampered) == .invalid)
    }

    @Test func withoutCredentialsOnlyTheFormIsChecked() throws {
        let verifier = ProviderTokenVerifier(credentials: nil, clock: clock)
        let stranger = try Self.token(key: P256PrivateKey(), header: ["alg": "ES256", "kid": "ANYKEY"], claims: ["iss": "ANYTEAM", "iat": .integer(vector.issuedAt)])
        #expect(verifier.check(stranger) == .valid)
        #expect(verifier.check(vector.validJWT) == .valid)
        let parts = vector.validJWT.split(separator: ".").map(String.init)
        #expect(verifier.check(parts[0] + "." + parts[1]) == .invalid)
        #expect(verifier.check(parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 1, count: 63))) == .invalid)
        let rs256 = Base64URL.encode(Array(#"{"alg":"RS256","kid":"K"}"#.utf8))
        #expect(verifier.check(rs256 + "." + parts[1] + "." + parts[2]) == .invalid)
        let noKid = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        #expect(verifier.check(noKid + "." + parts[1] + "." + parts[2]) == .invalid)
        clock.advance(milliseconds: 3_600_000)
        #expect(verifier.check(stranger) == .expired)
    }
}
