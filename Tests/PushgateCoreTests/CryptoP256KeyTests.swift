import Testing
import PushgateCore

@Suite struct CryptoP256KeyTests {
    static let hosts = ["hostA", "hostB"]

    static func identity(_ host: String) throws -> JSONValue {
        try #require(try JSONFixtures.load("vectors/p256-identities.json")[host])
    }

    static func object(_ value: JSONValue?) throws -> JSONObject {
        try #require(value?.objectValue)
    }

    @Test(arguments: hosts) func pkcs8ImportMatchesVector(_ host: String) throws {
        let vector = try Self.identity(host)
        let key = try P256PrivateKey(pkcs8PEM: try #require(vector["pkcs8Pem"]?.stringValue))
        #expect(try key.pkcs8PEM == vector["pkcs8Pem"]?.stringValue)
        #expect(try key.privateJWK.canonicalized() == Self.object(vector["privateJwk"]).canonicalized())
        #expect(key.publicKey.jwk.canonicalized() == (try Self.object(vector["publicJwk"]).canonicalized()))
        #expect(key.publicKey.serverId == vector["serverId"]?.stringValue)
        let d = try #require(try key.privateJWK["d"]?.stringValue)
        #expect(Hex.encode(try Base64URL.decode(d)) == vector["privateScalarHex"]?.stringValue)
    }

    @Test(arguments: hosts) func jwkImportMatchesVector(_ host: String) throws {
        let vector = try Self.identity(host)
        let key = try P256PrivateKey(jwk: Self.object(vector["privateJwk"]))
        #expect(try key.pkcs8PEM == vector["pkcs8Pem"]?.stringValue)
        #expect(try key.privateJWK.keys == ["kty", "crv", "x", "y", "d"])
        let publicKey = try P256PublicKey(jwk: Self.object(vector["publicJwk"]))
        #expect(publicKey.serverId == vector["serverId"]?.stringValue)
        #expect(publicKey.jwk.keys == ["kty", "crv", "x", "y"])
        #expect(publicKey.jwk.canonicalized() == vector["canonicalJwk"]?.stringValue)
    }

    @Test func publicJWKMemberOrderDoesNotMatter() throws {
        let jwk = try Self.object(Self.identity("hostA")["publicJwk"])
        let reordered = JSONObject(jwk.members.reversed().map { ($0.key, $0.value) })
        #expect(try P256PublicKey(jwk: reordered).serverId == P256PublicKey(jwk: jwk).serverId)
    }

    /// hostA's public JWK with one change applied.
    static func hostAJWK(_ change: @Sendable (inout JSONObject) -> Void) throws -> JSONObject {
        var jwk = try object(identity("hostA")["publicJwk"])
        change(&jwk)
        return jwk
    }

    static let x = "vXxzuIsum0ztpiAistqL4TGTpbVu3Cbn33hC4kzQtes"
    static let y = "BgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo"

    static let badPublicJWKs: [(String, @Sendable (inout JSONObject) -> Void)] = [
        ("extra d", { $0["d"] = "Hy49TFtqeYgfLj1MW2p5iB8uPUxbanmIHy49TFtqeYg" }),
        ("extra ext", { $0["ext"] = true }),
        ("extra alg", { $0["alg"] = "ES256" }),
        ("extra key_ops", { $0["key_ops"] = ["verify"] }),
        ("missing y", { $0["y"] = nil }),
        ("kty lower case", { $0["kty"] = "ec" }),
        ("crv P-384", { $0["crv"] = "P-384" }),
        ("x not a string", { $0["x"] = 1 }),
        ("x of 31 bytes", { $0["x"] = .string(Base64URL.encode([UInt8](repeating: 7, count: 31))) }),
        ("x of 33 bytes", { $0["x"] = .string(Base64URL.encode([UInt8](repeating: 7, count: 33))) }),
        ("x with non-zero unused bits", { $0["x"] = .string(String(x.dropLast()) + "t") }),
        ("x padded", { $0["x"] = .string(x + "=") }),
        ("y in the standard alphabet", { $0["y"] = .string(y.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")) }),
        ("x with whitespace", { $0["x"] = .string(" " + x) }),
        ("point not on the curve", { $0["y"] = .string(String(y.dropLast()) + "w") }),
    ]

    @Test(arguments: badPublicJWKs.indices) func rejectsPublicJWK(_ index: Int) throws {
        let (name, change) = Self.badPublicJWKs[index]
        let jwk = try Self.hostAJWK(change)
        #expect(throws: CryptoError.self, "\(name)") { try P256PublicKey(jwk: jwk) }
    }

    @Test func rejectsInconsistentOrOutOfRangePrivateJWK() throws {
        let a = try Self.object(Self.identity("hostA")["privateJwk"])
        var mixed = try Self.object(Self.identity("hostB")["privateJwk"])
        mixed["d"] = a["d"]
        #expect(throws: CryptoError.self) { try P256PrivateKey(jwk: mixed) }
        let order = "_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE"  // n itself
        for d in [String(repeating: "A", count: 42) + "A", order] {
            var jwk = a
            jwk["d"] = .string(d)
            #expect(throws: CryptoError.self) { try P256PrivateKey(jwk: jwk) }
        }
        var noD = a
        noD["d"] = nil
        #expect(throws: CryptoError.self) { try P256PrivateKey(jwk: noD) }
    }

    @Test func privateJWKMayCarryWebCryptoMembers() throws {
        var jwk = try Self.object(Self.identity("hostA")["privateJwk"])
        jwk["ext"] = true
        jwk["key_ops"] = ["sign"]
        #expect(try P256PrivateKey(jwk: jwk).publicKey.serverId == Self.identity("hostA")["serverId"]?.stringValue)
    }

    @Test func rejectsOtherPEMs() throws {
        let vector = try Self.identity("hostA")
        let rsa = try #require(try JSONFixtures.load("vectors/rs256-oauth.json")["serviceAccount"]?["private_key"]?.stringValue)
        let p384 = """
            -----BEGIN PRIVATE KEY-----
            MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAkzoLBJd6hKrIPIW27
            Rjj0qfKhWp3KtLFfVS0CBHO4zYtikSzVNu90lREJ1poMHT2hZANiAASJFzHFx4OX
            fpokCcRPSybeLa5U+5cdSwV0f1yI3IDnzDCwJyszJs9KOrxR0T8jfsfA2BlKO6Av
            hcbWw2JiWfFT2lra7KevUgHsNJUuAf+p5qYojPCgkQb9PftvAA3kBec=
            -----END PRIVATE KEY-----

            """
        let publicPEM = try #require(vector["publicSpkiPem"]?.stringValue)
        let pem = try #require(vector["pkcs8Pem"]?.stringValue)
        for text in [rsa, publicPEM, "", "not a key", String(pem.dropLast(40)), try Self.hostAWithHostBPublicKey()] {
            #expect(throws: CryptoError.self) { try P256PrivateKey(pkcs8PEM: text) }
        }
        let error = #expect(throws: CryptoError.self) { try P256PrivateKey(pkcs8PEM: p384) }
        #expect(error?.message.contains("not P-256") == true)
    }

    /// hostA's PKCS#8 with its embedded public point (the last 65 DER bytes) replaced by hostB's.
    static func hostAWithHostBPublicKey() throws -> String {
        let pem = try #require(try identity("hostA")["pkcs8Pem"]?.stringValue)
        var der = try Base64.decode(pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
        let b = try object(identity("hostB")["publicJwk"])
        let point = try [0x04] + Base64URL.decode(#require(b["x"]?.stringValue)) + Base64URL.decode(#require(b["y"]?.stringValue))
        der.replaceSubrange((der.count - 65)..., with: point)
        return "-----BEGIN PRIVATE KEY-----\n" + Base64.encode(der) + "\n-----END PRIVATE KEY-----\n"
    }

    @Test func generatedKeysRoundTrip() throws {
        let key = P256PrivateKey()
        let other = P256PrivateKey()
        #expect(key.publicKey.serverId != other.publicKey.serverId)
        #expect(key.publicKey.serverId.utf8.count == 43)
        let fromPEM = try P256PrivateKey(pkcs8PEM: key.pkcs8PEM)
        let fromJWK = try P256PrivateKey(jwk: key.privateJWK)
        #expect(fromPEM.publicKey.serverId == key.publicKey.serverId)
        #expect(try fromJWK.pkcs8PEM == key.pkcs8PEM)
        let message = Array("hello".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(fromPEM.publicKey.verify(signature: signature, message: message))
        #expect(!other.publicKey.verify(signature: signature, message: message))
    }
}
