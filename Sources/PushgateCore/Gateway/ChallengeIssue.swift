/// A challenge as the gateway mints it: the five-member answer, plus what it keeps.
///
/// - Important: protocol/gateway.md §2.1 steps 3–6 — fresh ephemeral key, nonce and secret; the
///   expected proof is computed at once and only its hash is kept; the secrets are forgotten.
public struct ChallengeIssue: Sendable {
    /// How long a challenge may be answered, in milliseconds.
    public static let lifetimeMs: Int64 = 10_000

    /// The response body.
    public let challenge: GatewayChallenge
    /// The host this challenge is for.
    public let hostFingerprint: String
    /// `push_challenges.secret_hash`: the stored digest of the expected proof.
    public let secretHash: String
    /// The transcript bytes (for the optional `transcript` column, read by nothing).
    public let transcript: [UInt8]

    /// A challenge with fresh randomness: a new ephemeral key pair, nonce, secret and lowercase UUID.
    public static func fresh(hostPublicKey: [UInt8], gatewayOrigin: String, nowMs: Int64) throws(CryptoError) -> ChallengeIssue {
        try ChallengeIssue(hostPublicKey: hostPublicKey, gatewayOrigin: gatewayOrigin,
                           challengeId: RandomUUID.lowercase(), issuedAt: nowMs, ephemeral: BoxKeyPair.generate(),
                           nonce: SecureRandom.bytes(NaClBox.nonceBytes), secret: SecureRandom.bytes(ChallengePlaintext.secretBytes))
    }

    /// A challenge from given inputs (the test vector's); `expiresAt` = `issuedAt` + 10 000.
    public init(hostPublicKey: [UInt8], gatewayOrigin: String, challengeId: String, issuedAt: Int64,
                ephemeral: BoxKeyPair, nonce: [UInt8], secret: [UInt8]) throws(CryptoError) {
        let fingerprint = HostFingerprint.of(publicKey: hostPublicKey)
        let expiresAt = issuedAt + Self.lifetimeMs
        let transcript = ChallengeTranscript(
            gatewayOrigin: gatewayOrigin, gatewayEphemeralPublicKey: ephemeral.publicKey, challengeNonce: nonce,
            challengeId: challengeId, issuedAt: issuedAt, expiresAt: expiresAt, hostFingerprint: fingerprint,
            hostPublicKey: hostPublicKey).bytes
        let sealed = try NaClBox.seal(ChallengePlaintext.build(transcript: transcript, secret: secret), nonce: nonce,
                                      recipientPublicKey: hostPublicKey, senderSecretKey: ephemeral.secretKey)
        challenge = GatewayChallenge(challengeId: challengeId, gatewayEphemeralPublicKeyB64: Base64.encode(ephemeral.publicKey),
                                     nonceB64: Base64.encode(nonce), ciphertextB64: Base64.encode(sealed), expiresAt: expiresAt)
        hostFingerprint = fingerprint
        secretHash = HostProof.storedHash(ofProof: HostProof.compute(secret: secret, transcript: transcript))
        self.transcript = transcript
    }
}
