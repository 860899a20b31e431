/// Compact JSON Web Tokens (RFC 7519) signed with ES256 or RS256: assembly and verification.
///
/// Header and claims are serialized by the project's own JSON writer, so member order and
/// number format are exactly what was built. Verification checks the `alg` header and the
/// signature only; the caller judges the claims (`iat`, `exp`, `iss`…).
public enum JWT {
    /// A verified token's decoded parts.
    public typealias Parts = (header: JSONObject, claims: JSONObject)

    /// `base64url(header) . base64url(claims) . base64url(signature)`, where `sign` signs the
    /// ASCII of the first two parts joined by a dot.
    static func assemble(header: JSONObject, claims: JSONObject, sign: ([UInt8]) throws -> [UInt8]) rethrows -> String {
        let signingInput = Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + Base64URL.encode(JSONValue.object(claims).serializedBytes())
        return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
    }

    /// The header and claims of an ES256 token whose signature (P1363, low-S or high-S)
    /// verifies under `publicKey`; `nil` for anything else.
    public static func verifyES256(_ token: String, publicKey: P256PublicKey) -> Parts? {
        guard let token = Compact(token, algorithm: "ES256"),
              let signature = try? P1363Signature.decode(base64url: token.signature),
              publicKey.verify(signature: signature, message: token.signingInput) else { return nil }
        return token.parts
    }

    /// The header and claims of a token shaped like ES256 (`alg` ES256, a 64-byte P1363
    /// signature), the signature unchecked: for the fake APNs when it has no key to check with.
    package static func unverifiedES256(_ token: String) -> Parts? {
        guard let token = Compact(token, algorithm: "ES256"),
              (try? P1363Signature.decode(base64url: token.signature)) != nil else { return nil }
        return token.parts
    }

    /// The header and claims of an RS256 token whose signature verifies under the RSA key in
    /// `publicKeyPEM` (`BEGIN PUBLIC KEY`); `nil` for anything else, including a bad PEM.
    public static func verifyRS256(_ token: String, publicKeyPEM: String) -> Parts? {
        guard let token = Compact(token, algorithm: "RS256"),
              let signature = try? Base64URL.decode(token.signature),
              let key = try? EVPKey(pem: publicKeyPEM, structure: "SubjectPublicKeyInfo", keyType: "RSA",
                                    selection: EVPKey.publicSelection, operation: "RSA public key import"),
              signature.withUnsafeBufferPointer({ key.verifySHA256(signature: $0, message: token.signingInput) })
        else { return nil }
        return token.parts
    }

    /// A token split into its three parts, with header and claims parsed as JSON objects and
    /// the header's `alg` checked.
    private struct Compact {
        let parts: Parts
        let signingInput: [UInt8]
        let signature: String

        init?(_ token: String, algorithm: String) {
            let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
            guard pieces.count == 3,
                  let header = Self.object(pieces[0]), let claims = Self.object(pieces[1]),
                  header["alg"] == .string(algorithm) else { return nil }
            parts = (header, claims)
            signingInput = Array(token.utf8.prefix(pieces[0].utf8.count + 1 + pieces[1].utf8.count))
            signature = String(pieces[2])
        }

        private static func object(_ segment: Substring) -> JSONObject? {
            guard let bytes = try? Base64URL.decode(String(segment)) else { return nil }
            return (try? JSONValue.parse(bytes))?.objectValue
        }
    }
}
