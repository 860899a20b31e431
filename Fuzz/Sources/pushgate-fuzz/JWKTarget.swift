@testable import PushgateCore

/// A signed request's proof material: the public JWK import (exact members, canonical
/// base64url coordinates, a point on P-256), the private JWK import, and the signature
/// encodings (`sig` as unpadded base64url P1363, its low-S form, DER). An accepted key writes back
/// the coordinates it was read from; a signature's encodings convert both ways without loss.
enum JWKTarget {
    static let target = FuzzTarget("jwk") { input in
        let bytes = Array(input)
        // Only canonical DER decodes, so what decodes encodes back to the same bytes.
        if let signature = ECDSASignatureDER.decode(bytes) {
            precondition(ECDSASignatureDER.encode(p1363: signature) == bytes, "DER that decodes is not canonical")
        }
        guard let object = (try? JSONValue.parse(bytes))?.objectValue else { return }
        if let key = try? P256PublicKey(jwk: object) {
            precondition(.string(key.x) == object["x"] && .string(key.y) == object["y"], "an accepted JWK is not written back as read")
            precondition((try? P256PublicKey(jwk: key.jwk))?.serverId == key.serverId, "the key's own JWK is another key")
        }
        if let key = try? P256PrivateKey(jwk: object) {
            guard let signature = try? key.sign(bytes) else { preconditionFailure("an imported key cannot sign") }
            precondition(key.publicKey.verify(signature: signature, message: bytes), "an imported key's signature does not verify")
        }
        if let text = object["sig"]?.stringValue, let signature = try? P1363Signature.decode(base64url: text) {
            let low = P1363Signature.lowS(signature)
            precondition(P1363Signature.lowS(low) == low, "low-S is not idempotent")
            if let der = ECDSASignatureDER.encode(p1363: signature) {
                precondition(ECDSASignatureDER.decode(der) == signature, "DER does not convert back")
            }
        }
    }
}
