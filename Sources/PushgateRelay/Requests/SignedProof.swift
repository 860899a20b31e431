import PushgateCore
import PushgateStore

/// The `publicKeyJwk`, `ts` and `sig` of a signed request, decoded strictly.
///
/// - Important: docs/relay.md "Signed requests" — exact JWK members, integer millisecond `ts`, 64-byte
///   P1363 signature in unpadded base64url; any encoding fault is `invalid_request`. A key whose
///   coordinates are no point of P-256 verifies nothing: `invalid_signature`, after the timestamp.
struct SignedProof {
    /// `nil` when the JWK's coordinates are well encoded but no point of the curve.
    private let publicKey: P256PublicKey?
    let timestampMs: Int64
    let signature: [UInt8]

    init(_ fields: FieldReader, keys: PublicKeyCache) throws(RelayError) {
        publicKey = try keys.key(for: fields.relayObject("publicKeyJwk"))
        timestampMs = try fields.relay({ try $0.integer("ts") })
        guard let signature = try? P1363Signature.decode(base64url: fields.relay({ try $0.string("sig") })) else { throw .invalidRequest }
        self.signature = signature
    }

    /// Checks freshness, then the signature over `message`; the `serverId` of the key that verified it.
    func verify(message: String, nowMs: Int64, skewMs: Int64) throws(RelayError) -> String {
        guard abs(nowMs - timestampMs) <= skewMs else { throw .timestamp }
        guard let publicKey, publicKey.verify(signature: signature, message: Array(message.utf8)) else { throw .invalidSignature }
        return publicKey.serverId
    }

    /// The replay key of a request that verified as `serverId`: a digest of serverId, ts and the
    /// low-S form of the signature, so the high-S twin of a captured signature is the same key,
    /// and one signature is one key on every route. It lives until `ts + skewMs + 1 s`, past
    /// the last moment the request is fresh (docs/relay.md "Replay set").
    func replayKey(serverId: String, skewMs: Int64) -> (digest: ReplayDigest, expiresAtMs: Int64) {
        let text = "\(serverId).\(timestampMs).\(Base64URL.encode(P1363Signature.lowS(signature)))"
        return (ReplayDigest(text), timestampMs + skewMs + 1_000)
    }
}
