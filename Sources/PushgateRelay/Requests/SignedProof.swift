import PushgateCore

/// The `publicKeyJwk`, `ts` and `sig` of a signed request, decoded strictly.
///
/// - Important: relay-protocol.md §1 — exact JWK members, integer millisecond `ts`, 64-byte
///   P1363 signature in unpadded base64url; any encoding fault is `invalid_request`.
struct SignedProof {
    let publicKey: P256PublicKey
    let timestampMs: Int64
    let signature: [UInt8]

    init(_ fields: FieldReader, keys: PublicKeyCache) throws(RelayError) {
        publicKey = try keys.key(for: fields.relayObject("publicKeyJwk"))
        timestampMs = try fields.relay({ try $0.integer("ts") })
        guard let signature = try? P1363Signature.decode(base64url: fields.relay({ try $0.string("sig") })) else { throw .invalidRequest }
        self.signature = signature
    }

    /// Checks freshness, then the signature over `message`.
    func verify(message: String, nowMs: Int64, skewMs: Int64) throws(RelayError) {
        guard abs(nowMs - timestampMs) <= skewMs else { throw .timestamp }
        guard publicKey.verify(signature: signature, message: Array(message.utf8)) else { throw .invalidSignature }
    }

    /// The replay-set key: route prefix, serverId, ts and the low-S form of the signature, so the
    /// high-S twin of a captured signature is the same key (relay-protocol.md §2).
    func replayKey(route: String) -> String {
        "\(route).\(publicKey.serverId).\(timestampMs).\(Base64URL.encode(P1363Signature.lowS(signature)))"
    }
}
