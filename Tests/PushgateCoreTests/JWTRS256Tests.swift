import Testing
import PushgateCore

@Suite struct JWTRS256Tests {
    static func file() throws -> JSONValue { try JSONFixtures.load("vectors/rs256-oauth.json") }

    static func account() throws -> ServiceAccount {
        let object = try #require(try file()["serviceAccount"])
        return try ServiceAccount(json: object.serializedBytes())
    }

    @Test func assertionReproducesTheVectorExactly() throws {
        let account = try Self.account()
        #expect(account.projectId == "pushgate-test")
        #expect(account.clientEmail == "relay@pushgate-test.iam.gserviceaccount.com")
        let token = try OAuthAssertion.make(account: account, issuedAt: 1_764_669_600)
        let expected = try #require(try Self.file()["expectedJwt"]?.stringValue)
        let signingInput = try #require(try Self.file()["signingInput"]?.stringValue)
        #expect(Array(token.utf8) == Array(expected.utf8))
        #expect(token.hasPrefix(signingInput + "."))
    }

    @Test func assertionVerifiesWithThePublicKey() throws {
        let account = try Self.account()
        let expected = try #require(try Self.file()["expectedJwt"]?.stringValue)
        let pem = try account.privateKey.publicKeyPEM
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let parts = try #require(JWT.verifyRS256(expected, publicKeyPEM: pem))
        #expect(parts.header == JSONObject([("alg", "RS256"), ("typ", "JWT"), ("kid", "0123456789abcdef")]))
        #expect(parts.claims["aud"] == "https://oauth2.googleapis.com/token")
        #expect(parts.claims["scope"] == .string(OAuthAssertion.firebaseMessagingScope))
        #expect(parts.claims["exp"] == .integer(1_764_673_200))
    }

    @Test func rejectsTamperedTokensAndWrongKeys() throws {
        let account = try Self.account()
        let expected = try #require(try Self.file()["expectedJwt"]?.stringValue)
        let pem = try account.privateKey.publicKeyPEM
        let pieces = expected.split(separator: ".").map(String.init)
        let later = Base64URL.encode(Array(#"{"iss":"relay@pushgate-test.iam.gserviceaccount.com","iat":1764669601}"#.utf8))
        let es256 = try #require(try JSONFixtures.load("vectors/es256-jwt.json")["validJwt"]?.stringValue)
        for token in [[pieces[0], later, pieces[2]].joined(separator: "."), String(expected.dropLast(2)), es256, pieces[0]] {
            #expect(JWT.verifyRS256(token, publicKeyPEM: pem) == nil)
        }
        let p256PublicPEM = try #require(try JSONFixtures.load("vectors/p256-identities.json")["hostA"]?["publicSpkiPem"]?.stringValue)
        for wrongPEM in [p256PublicPEM, "", "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n"] {
            #expect(JWT.verifyRS256(expected, publicKeyPEM: wrongPEM) == nil)
        }
    }

    @Test func rejectsMalformedServiceAccounts() throws {
        let good = try #require(try Self.file()["serviceAccount"]?.objectValue)
        let changes: [(String, JSONValue?)] = [
            ("client_email", nil), ("client_email", "  "), ("project_id", 7), ("project_id", ""), ("private_key", nil),
            ("private_key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), ("token_uri", 1),
        ]
        for (key, value) in changes {
            var object = good
            object[key] = value
            let error = #expect(throws: CryptoError.self, "\(key)") { try ServiceAccount(object: object) }
            if key != "private_key" { #expect(error?.message.contains(key) == true) }
        }
        #expect(throws: (any Error).self) { try ServiceAccount(json: Array("[]".utf8)) }
        #expect(throws: (any Error).self) { try ServiceAccount(json: Array("{".utf8)) }
    }

    /// protocol/hapi-push.md §6: `token_uri` and `private_key_id` are optional, `type` is not read.
    @Test func optionalMembersHaveTheirDefaults() throws {
        var object = try #require(try Self.file()["serviceAccount"]?.objectValue)
        object["token_uri"] = nil
        object["private_key_id"] = ""
        object["type"] = "authorized_user"
        let account = try ServiceAccount(object: object)
        #expect(account.tokenURI == ServiceAccount.defaultTokenURI)
        #expect(account.privateKeyId == nil)
        let token = try OAuthAssertion.make(account: account, issuedAt: 1_764_669_600)
        let parts = try #require(JWT.verifyRS256(token, publicKeyPEM: try account.privateKey.publicKeyPEM))
        #expect(parts.header == JSONObject([("alg", "RS256"), ("typ", "JWT")]))
        #expect(parts.claims["aud"] == .string(ServiceAccount.defaultTokenURI))
    }

    @Test func rejectsShortAndNonRSAKeys() throws {
        let rsa1024 = """
            -----BEGIN PRIVATE KEY-----
            MIICeAIBADANBgkqhkiG9w0BAQEFAASCAmIwggJeAgEAAoGBAM5tM8qfExnuAoMu
            LRR0D2QfaEPrVjMy0qikgnVV8edzZ6r5UctBpnh5rL3L7VMG2kwe6eSTCo/gyn2Q
            b/1HnJNdRG5f7ZIRxvM4E8swtZiFprzTnhj3P3Yzk2v6UTFKMc6il15NyhFyWHYs
            MgAyp0D48wcLvMcmtRJyCCJBwZvNAgMBAAECgYEAsgQAhvsZ2OGlbwUyQRI5d6mS
            HAhmJO7uNhrwmkmMvIGMZChv/i3WZszfSCoFtvUQ6lY6dDDOCffcB964hR7tiaXN
            e4Q2ZsE4zI/rgfUS999GcWScvPiLxxlRifEq8cPmdO7av4uf8cq0hmkL2noehspo
            ooXNGOwyL2Uk6jtv+I0CQQD8VXuwwalMoK7+rJuEP3FdQ2TAxtjVRoaWtjbE0eYR
            JMfA7Dq3IBAE4G+jZSF3jPH7uSVK0T5IGU1jjYSxOuGfAkEA0Wz5USaYntAYnnMF
            zKBrQ44kLE5CRPb8PtJr8jSzVQZWX/Eg9azLPvm50qUzredJlMMlwTGM0pT1hZs3
            yYIDEwJBAKRvwI9LZNx+ygtEyIPCJEo2pO3Lp3o033hPfhl8/4Skh1f9mbXEuyuy
            Zo4AVXLm8rqryNWczg2GD5yUmKg2StkCQHAjPcyqMga3vrb5OB29uDHQJqZisTFk
            XuT0n0Bt36ijYBS3dMKX56ys40dbljSEJ+40ID82XQVVJbKIznJj32kCQQD1e6t7
            pdjqhOdYVnAt4wW6S4oOxSJkaP91AiWl1yfTHH6FQgx/iZy4TzIYRE10kS6X+0Is
            +dOcld+aoPnUkkMe
            -----END PRIVATE KEY-----

            """
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pkcs8PEM: rsa1024) }
        #expect(error?.message.contains("1024-bit") == true)
        let p256 = try #require(try JSONFixtures.load("vectors/p256-identities.json")["hostA"]?["pkcs8Pem"]?.stringValue)
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pkcs8PEM: p256) }
    }
}
