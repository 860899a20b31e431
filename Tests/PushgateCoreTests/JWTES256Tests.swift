import Testing
import PushgateCore

@Suite struct JWTES256Tests {
    struct Vector {
        let key: P256PrivateKey
        let publicKey: P256PublicKey
        let keyId: String
        let teamId: String
        let iat: Int64
        let signingInput: String
        let validJwt: String
    }

    static func vector() throws -> Vector {
        let file = try JSONFixtures.load("vectors/es256-jwt.json")
        return Vector(
            key: try P256PrivateKey(pkcs8PEM: try #require(file["p8Pem"]?.stringValue)),
            publicKey: try P256PublicKey(jwk: try #require(file["publicJwk"]?.objectValue)),
            keyId: try #require(file["keyId"]?.stringValue),
            teamId: try #require(file["teamId"]?.stringValue),
            iat: try #require(file["iat"]?.int64Value),
            signingInput: try #require(file["signingInput"]?.stringValue),
            validJwt: try #require(file["validJwt"]?.stringValue))
    }

    static func signingInput(of token: String) -> String {
        String(token[..<token.lastIndex(of: ".")!])
    }

    @Test func providerTokenMatchesTheVectorSigningInputAndVerifies() throws {
        let v = try Self.vector()
        let token = APNsProviderToken.make(key: v.key, keyId: v.keyId, teamId: v.teamId, issuedAt: v.iat)
        #expect(Array(Self.signingInput(of: token).utf8) == Array(v.signingInput.utf8))
        let parts = try #require(JWT.verifyES256(token, publicKey: v.publicKey))
        #expect(parts.header == JSONObject([("alg", "ES256"), ("kid", .string(v.keyId))]))
        #expect(parts.claims == JSONObject([("iss", .string(v.teamId)), ("iat", .integer(v.iat))]))
        #expect(v.key.publicKey.serverId == v.publicKey.serverId)
    }

    @Test func vectorTokenVerifies() throws {
        let v = try Self.vector()
        let parts = try #require(JWT.verifyES256(v.validJwt, publicKey: v.publicKey))
        #expect(parts.claims["iat"] == .integer(v.iat))
        #expect(parts.claims["iss"] == .string(v.teamId))
        #expect(parts.header["kid"] == .string(v.keyId))
    }

    @Test func rejectsTamperedOrForeignTokens() throws {
        let v = try Self.vector()
        let pieces = v.validJwt.split(separator: ".").map(String.init)
        let otherClaims = Base64URL.encode(Array(#"{"iss":"TEAM123456","iat":1764669601}"#.utf8))
        let rs256Header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"ABC123DEFG"}"#.utf8))
        let foreign = APNsProviderToken.make(key: P256PrivateKey(), keyId: v.keyId, teamId: v.teamId, issuedAt: v.iat)
        let signature = try Base64URL.decode(pieces[2])
        let der = Base64URL.encode([0x30, 0x44, 0x02, 0x20] + signature.prefix(32) + [0x02, 0x20] + signature.suffix(32))
        for token in [
            [pieces[0], otherClaims, pieces[2]].joined(separator: "."),
            [rs256Header, pieces[1], pieces[2]].joined(separator: "."),
            [pieces[0], pieces[1]].joined(separator: "."),
            v.validJwt + ".",
            v.validJwt + "==",
            [pieces[0], pieces[1], der].joined(separator: "."),
            [pieces[0], pieces[1], Base64.encode(signature)].joined(separator: "."),
            foreign,
            "",
        ] {
            #expect(JWT.verifyES256(token, publicKey: v.publicKey) == nil)
        }
    }
}
