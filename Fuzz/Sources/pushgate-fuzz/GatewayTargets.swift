@testable import PushgateCore
import PushgateStore
@testable import PushgateRelay

/// The gateway handshake as a host answers it, and the gateway's request bodies
/// (`/v1/host/challenge`, `/v1/host/session`, `/v1/devices`, `/v1/send`), each followed by what
/// the gateway builds from an accepted one. Keys, nonce, origin and times are those of
/// Fixtures/vectors/orca-challenge.json.
enum GatewayTargets {
    static let all = [transcript, challengeRequest, sessionRequest, devices, send]

    static let host = try! BoxKeyPair(secretKey: try! Hex.decode("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
    static let ephemeral = try! BoxKeyPair(secretKey: try! Hex.decode("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
    static let nonce = try! Hex.decode("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37")
    static let answerer = HostChallengeAnswerer(keyPair: host, gatewayOrigin: "https://gateway.pushgate.test")
    static let challengeId = "3f2b8c1e-6d4a-4b7e-9c21-0a5e7d9f1b34"
    static let expiresAt: Int64 = 1_764_669_610_000
    static let hostNowMs: Int64 = 1_764_669_601_000

    /// The first byte picks the input's role: the plaintext a gateway seals into a challenge (its
    /// layout and transcript, which the host checks field by field), the challenge answer's JSON,
    /// or the session answer's JSON.
    static let transcript = FuzzTarget("gateway-transcript") { input in
        guard let role = input.first else { return }
        let rest = Array(input.dropFirst())
        switch role % 3 {
        case 0:
            if let (transcript, _) = ChallengePlaintext.split(rest), let fields = ChallengeTranscript.fields(of: transcript) {
                // A transcript that splits is exactly its fields written back (names are read as
                // UTF-8, so one that was not comes back otherwise).
                let written = fields.flatMap { field in
                    ChallengeTranscript.u32(field.name.utf8.count) + Array(field.name.utf8) + ChallengeTranscript.u32(field.value.count) + field.value
                }
                if !fields.contains(where: { $0.name.unicodeScalars.contains("\u{FFFD}") }) {
                    precondition(written == transcript, "a transcript's fields do not write it back")
                }
            }
            guard let sealed = try? NaClBox.seal(rest, nonce: nonce, recipientPublicKey: host.publicKey, senderSecretKey: ephemeral.secretKey)
            else { return }
            let challenge = GatewayChallenge(challengeId: challengeId, gatewayEphemeralPublicKeyB64: Base64.encode(ephemeral.publicKey),
                                             nonceB64: Base64.encode(nonce), ciphertextB64: Base64.encode(sealed), expiresAt: expiresAt)
            if let proof = try? answerer.answer(challenge, nowMs: hostNowMs) {
                precondition(proof.count == 32, "a proof is not 32 bytes")
            }
        case 1:
            guard let json = try? JSONValue.parse(rest), let challenge = try? GatewayChallenge(json: json) else { return }
            _ = try? answerer.answer(challenge, nowMs: hostNowMs)
        default:
            guard let json = try? JSONValue.parse(rest) else { return }
            _ = try? answerer.acceptSession(json)
        }
    }

    static let challengeRequest = FuzzTarget("gateway-challenge-request") { input in
        guard let request = try? GatewayChallengeRequest(body: Array(input)) else { return }
        precondition(request.hostPublicKey.count == NaClBox.publicKeyBytes, "an accepted host key is not 32 bytes")
        _ = try? ChallengeIssue(hostPublicKey: request.hostPublicKey, gatewayOrigin: "https://gateway.pushgate.test",
                                challengeId: challengeId, issuedAt: expiresAt - ChallengeIssue.lifetimeMs, ephemeral: ephemeral,
                                nonce: nonce, secret: Array(repeating: 0xA0, count: ChallengePlaintext.secretBytes))
    }

    static let sessionRequest = FuzzTarget("gateway-session-request") { input in
        guard let request = try? GatewaySessionRequest(body: Array(input)) else { return }
        if let hash = request.proofHash { precondition(hash.utf8.count == 43, "a proof hash is not 43 characters") }
    }

    static let devices = FuzzTarget("gateway-devices") { input in
        guard let request = try? GatewayDeviceRequest(body: Array(input)) else { return }
        precondition((try? JSONValue.parse(request.filterJSON))?.objectValue?.count == 2, "the stored filter does not read back")
        precondition((request.platform == "ios") == (request.apnsEnvironment != nil), "apnsEnvironment goes with iOS only")
    }

    static let send = FuzzTarget("gateway-send") { input in
        guard let request = try? GatewaySendRequest(body: Array(input)) else { return }
        let distinct = request.distinctRegistrationIds
        precondition(!distinct.isEmpty && distinct.count <= GatewaySendRequest.maxRecipients, "recipients out of range")
        // One notification alone and as the latest of a coalesced window.
        for count in [1, 3] {
            let delivery = GatewayDelivery(registrationId: distinct[0], hostFingerprint: "MAyclgO5Kks57TlY", latest: request.notification,
                                           count: count, anyNeedsInput: request.notification.agentState == "needs-input")
            precondition(!delivery.collapseId.isEmpty && delivery.collapseId.utf8.count <= GatewayDelivery.maxCollapseIdBytes,
                         "a collapse id is empty or over 64 bytes")
            _ = try? GatewayAPNsRequest.notification(delivery, token: String(repeating: "ab", count: 32), topic: "com.example.app",
                                                     nowMs: expiresAt)
            _ = GatewayFCMMessage.fcmMessage(delivery, token: "fcm:" + String(repeating: "x", count: 40), channelId: "default").body
        }
    }
}
