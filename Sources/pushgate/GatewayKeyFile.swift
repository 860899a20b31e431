import PushgateCommandLine
import PushgateCore

/// A gateway host's X25519 key file: one line of JSON, an OKP JWK (RFC 8037)
/// `{"kty":"OKP","crv":"X25519","x":…,"d":…}`, mode 0600.
enum GatewayKeyFile {
    /// Creates `path` (never replacing a file) with a new key pair; returns the pair.
    static func create(_ path: String) throws -> BoxKeyPair {
        let pair = try BoxKeyPair.generate()
        let jwk = JSONObject([
            ("kty", "OKP"), ("crv", "X25519"), ("x", .string(Base64URL.encode(pair.publicKey))),
            ("d", .string(Base64URL.encode(pair.secretKey))),
        ])
        try ToolFile.createSecret(path, contents: Array((jwk.serialized() + "\n").utf8))
        return pair
    }

    /// The key pair in `path`; the public half must match the secret one.
    static func read(_ path: String) throws -> BoxKeyPair {
        let jwk = try ToolFile.readObject(path)
        guard jwk["kty"] == "OKP", jwk["crv"] == "X25519", let d = jwk["d"]?.stringValue, let x = jwk["x"]?.stringValue,
              let secret = try? Base64URL.decode(d), secret.count == X25519.keyBytes
        else { throw ToolFailure("\(path) is not an X25519 private key file (pushgate gateway key --out FILE makes one)") }
        let pair = try BoxKeyPair(secretKey: secret)
        guard Base64URL.encode(pair.publicKey) == x else { throw ToolFailure("\(path): x does not belong to d") }
        return pair
    }
}
