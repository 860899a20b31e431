/// The host side of the gateway handshake: builds the two requests, checks a challenge the
/// way an Orca desktop does before it answers, computes the proof, and checks the session answer.
///
/// - Important: protocol/gateway.md §2.9 — every check must hold or no proof is returned; byte
///   comparisons are constant-time; a failure names its check only.
public struct HostChallengeAnswerer: Sendable {
    /// The host's own clock allowance for timestamps written by the gateway's clock.
    public static let skewAllowanceMs: Int64 = 30_000

    public let keyPair: BoxKeyPair
    /// The origin this host is configured to use, exactly as bound into transcripts.
    public let gatewayOrigin: String
    public let hostFingerprint: String

    public init(keyPair: BoxKeyPair, gatewayOrigin: String) {
        self.keyPair = keyPair
        self.gatewayOrigin = gatewayOrigin
        hostFingerprint = HostFingerprint.of(publicKey: keyPair.publicKey)
    }

    /// `{"v":1,"hostPublicKeyB64":…}` for `POST /v1/host/challenge`.
    public var challengeRequest: JSONValue {
        .object(JSONObject([("v", 1), ("hostPublicKeyB64", .string(Base64.encode(keyPair.publicKey)))]))
    }

    /// `{"v":1,"challengeId":…,"proofB64":…}` for `POST /v1/host/session`.
    public func sessionRequest(challengeId: String, proof: [UInt8]) -> JSONValue {
        .object(JSONObject([("v", 1), ("challengeId", .string(challengeId)), ("proofB64", .string(Base64.encode(proof)))]))
    }

    /// The 32-byte proof for `challenge`, judged at host time `nowMs`, or the first check that fails.
    public func answer(_ challenge: GatewayChallenge, nowMs: Int64) throws(HostCheckFailure) -> [UInt8] {
        guard let ephemeral = try? GatewayBase64.decode(challenge.gatewayEphemeralPublicKeyB64, byteCount: NaClBox.publicKeyBytes),
              let nonce = try? GatewayBase64.decode(challenge.nonceB64, byteCount: NaClBox.nonceBytes),
              let sealed = try? GatewayBase64.decode(challenge.ciphertextB64)
        else { throw .envelopeEncoding }
        guard let plaintext = try? NaClBox.open(sealed, nonce: nonce, senderPublicKey: ephemeral,
                                                recipientSecretKey: keyPair.secretKey)
        else { throw .boxOpen }
        guard let (transcript, secret) = ChallengePlaintext.split(plaintext) else { throw .plaintextLayout }
        guard let list = ChallengeTranscript.fields(of: transcript), list.count == ChallengeTranscript.fieldNames.count
        else { throw .transcriptStructure }
        let fields = Dictionary(uniqueKeysWithValues: list.map { ($0.name, $0.value) })
        try checkTimes(fields, expiresAt: challenge.expiresAt, nowMs: nowMs)
        let expected: [(String, [UInt8])] = [
            ("protocol", Array(ChallengeTranscript.protocolName.utf8)),
            ("version", [ChallengeTranscript.version]),
            ("gatewayOrigin", Array(gatewayOrigin.utf8)),
            ("gatewayEphemeralPublicKey", ephemeral),
            ("challengeNonce", nonce),
            ("challengeId", Array(challenge.challengeId.utf8)),
            ("hostFingerprint", Array(hostFingerprint.utf8)),
            ("hostPublicKey", keyPair.publicKey),
        ]
        for (name, value) in expected {
            guard let actual = fields[name], ConstantTime.equals(actual, value) else { throw HostCheckFailure(name) }
        }
        return HostProof.compute(secret: secret, transcript: transcript)
    }

    /// Checks 9–13: `issuedAt` and `expiresAt` against the host clock, the TTL and the JSON `expiresAt`.
    private func checkTimes(_ fields: [String: [UInt8]], expiresAt: Int64, nowMs: Int64) throws(HostCheckFailure) {
        guard let issuedAt = fields["issuedAt"].flatMap(Self.safeInteger) else { throw .issuedAtFormat }
        guard issuedAt - Self.skewAllowanceMs <= nowMs else { throw .issuedAtNotFuture }
        guard nowMs - Self.skewAllowanceMs <= expiresAt else { throw .notExpired }
        guard issuedAt <= expiresAt, expiresAt - issuedAt <= ChallengeIssue.lifetimeMs else { throw .windowConsistent }
        guard let bound = fields["expiresAt"].flatMap(Self.safeInteger), bound == expiresAt else { throw .windowConsistent }
    }

    /// The session answer, if it has exactly `sessionToken`, `expiresAt` and `hostFingerprint`
    /// and names this host; otherwise the token must be discarded.
    public func acceptSession(_ json: JSONValue) throws(HostCheckFailure) -> (sessionToken: String, expiresAt: Int64) {
        guard let object = json.objectValue, object.count == 3,
              let token = object["sessionToken"]?.stringValue, !token.isEmpty,
              let expiresAt = object["expiresAt"]?.safeIntegerValue, expiresAt > 0,
              let fingerprint = object["hostFingerprint"]?.stringValue
        else { throw .responseShape }
        guard ConstantTime.equals(Array(fingerprint.utf8), Array(hostFingerprint.utf8)) else { throw .sessionFingerprint }
        return (token, expiresAt)
    }

    /// An 8-byte big-endian value no larger than 2^53 − 1.
    private static func safeInteger(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == 8 else { return nil }
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value <= 9_007_199_254_740_991 ? Int64(value) : nil
    }
}
