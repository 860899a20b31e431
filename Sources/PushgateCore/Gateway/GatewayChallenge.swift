/// The answer to `POST /v1/host/challenge`: exactly five members.
///
/// - Important: protocol/gateway.md §2.1 — no other member, the fingerprint is not echoed; hosts
///   refuse an answer with an extra member.
public struct GatewayChallenge: Sendable, Equatable {
    public var challengeId: String
    public var gatewayEphemeralPublicKeyB64: String
    public var nonceB64: String
    public var ciphertextB64: String
    public var expiresAt: Int64

    public init(challengeId: String, gatewayEphemeralPublicKeyB64: String, nonceB64: String, ciphertextB64: String,
                expiresAt: Int64) {
        self.challengeId = challengeId
        self.gatewayEphemeralPublicKeyB64 = gatewayEphemeralPublicKeyB64
        self.nonceB64 = nonceB64
        self.ciphertextB64 = ciphertextB64
        self.expiresAt = expiresAt
    }

    /// The response body, members in the order of §2.1.
    public var json: JSONValue {
        .object(JSONObject([
            ("challengeId", .string(challengeId)),
            ("gatewayEphemeralPublicKeyB64", .string(gatewayEphemeralPublicKeyB64)),
            ("nonceB64", .string(nonceB64)),
            ("ciphertextB64", .string(ciphertextB64)),
            ("expiresAt", .integer(expiresAt)),
        ]))
    }

    /// Reads a challenge answer as an Orca host does: exactly the five members, `challengeId`
    /// up to 512 chars, key and nonce up to 128, ciphertext up to 8192, `expiresAt` a positive
    /// integer. Anything else fails the `response-shape` check.
    public init(json: JSONValue) throws(HostCheckFailure) {
        let shape = HostCheckFailure.responseShape
        guard let object = json.objectValue, object.count == 5,
              let id = object["challengeId"]?.stringValue, (1...512).contains(id.utf16.count),
              let key = object["gatewayEphemeralPublicKeyB64"]?.stringValue, key.utf16.count <= 128,
              let nonce = object["nonceB64"]?.stringValue, nonce.utf16.count <= 128,
              let ciphertext = object["ciphertextB64"]?.stringValue, ciphertext.utf16.count <= 8_192,
              let expiresAt = object["expiresAt"]?.safeIntegerValue, expiresAt > 0
        else { throw shape }
        self.init(challengeId: id, gatewayEphemeralPublicKeyB64: key, nonceB64: nonce, ciphertextB64: ciphertext,
                  expiresAt: expiresAt)
    }
}
