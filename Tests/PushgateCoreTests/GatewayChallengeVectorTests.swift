import Testing
@testable import PushgateCore

/// protocol/gateway.md §12 lines 1–5 against `Fixtures/vectors/orca-challenge.json`, step by step.
@Suite struct GatewayChallengeVectorTests {
    struct Vector {
        let json: JSONValue
        let hostSecretKey: [UInt8]
        let ephemeralSecretKey: [UInt8]
        let nonce: [UInt8]
        let secret: [UInt8]
        let origin: String
        let challengeId: String
        let issuedAt: Int64
        let expiresAt: Int64

        init() throws {
            json = try JSONFixtures.load("vectors/orca-challenge.json")
            let inputs = try #require(json["inputs"])
            func hex(_ key: String) throws -> [UInt8] { try Hex.decode(try #require(inputs[key]?.stringValue)) }
            hostSecretKey = try hex("hostSecretKeyHex")
            ephemeralSecretKey = try hex("gatewayEphemeralSecretKeyHex")
            nonce = try hex("nonceHex")
            secret = try hex("challengeSecretHex")
            origin = try #require(inputs["gatewayOrigin"]?.stringValue)
            challengeId = try #require(inputs["challengeId"]?.stringValue)
            issuedAt = try #require(inputs["issuedAt"]?.safeIntegerValue)
            expiresAt = try #require(inputs["expiresAt"]?.safeIntegerValue)
        }

        func hex(_ section: String, _ key: String) throws -> [UInt8] {
            try Hex.decode(try #require(json[section]?[key]?.stringValue))
        }

        func string(_ section: String, _ key: String) throws -> String {
            try #require(json[section]?[key]?.stringValue)
        }

        var host: BoxKeyPair { get throws { try BoxKeyPair(secretKey: hostSecretKey) } }
        var ephemeral: BoxKeyPair { get throws { try BoxKeyPair(secretKey: ephemeralSecretKey) } }

        func issue() throws -> ChallengeIssue {
            try ChallengeIssue(hostPublicKey: host.publicKey, gatewayOrigin: origin, challengeId: challengeId,
                               issuedAt: issuedAt, ephemeral: ephemeral, nonce: nonce, secret: secret)
        }

        var transcript: ChallengeTranscript {
            get throws {
                ChallengeTranscript(gatewayOrigin: origin, gatewayEphemeralPublicKey: try ephemeral.publicKey,
                                    challengeNonce: nonce, challengeId: challengeId, issuedAt: issuedAt,
                                    expiresAt: expiresAt, hostFingerprint: try string("derived", "hostFingerprint"),
                                    hostPublicKey: try host.publicKey)
            }
        }
    }

    // §12 line 1
    @Test func fingerprintIsOverTheRawKeyBytes() throws {
        let vector = try Vector()
        let hostKey = try vector.host.publicKey
        #expect(try hostKey == vector.hex("derived", "hostPublicKeyHex"))
        #expect(try Base64.encode(hostKey) == vector.string("derived", "hostPublicKeyB64"))
        #expect(HostFingerprint.of(publicKey: hostKey) == "MAyclgO5Kks57TlY")
        #expect(HostFingerprint.of(publicKey: [UInt8](repeating: 0, count: 32)) == "Zmh6rfhivXdsj8GL")
        // Hashing the base64 text instead gives something else.
        #expect(HostFingerprint.of(publicKey: Array(Base64.encode(hostKey).utf8)) != "MAyclgO5Kks57TlY")
    }

    // §12 line 2
    @Test func transcriptAndPlaintextMatchByteForByte() throws {
        let vector = try Vector()
        let transcript = try vector.transcript.bytes
        #expect(transcript.count == 412)
        #expect(transcript.count == 347 + vector.origin.utf8.count + vector.challengeId.utf8.count)
        #expect(try transcript == vector.hex("transcript", "hex"))
        let plaintext = ChallengePlaintext.build(transcript: transcript, secret: vector.secret)
        #expect(plaintext.count == 476)
        #expect(try plaintext == vector.hex("plaintext", "hex"))
        let split = try #require(ChallengePlaintext.split(plaintext))
        #expect(split.transcript == transcript && split.secret == vector.secret)
    }

    // §12 line 3
    @Test func boxStepsMatchByteForByte() throws {
        let vector = try Vector()
        let host = try vector.host
        let ephemeral = try vector.ephemeral
        #expect(try ephemeral.publicKey == vector.hex("derived", "gatewayEphemeralPublicKeyHex"))
        let shared = try X25519.sharedSecret(secretKey: ephemeral.secretKey, publicKey: host.publicKey)
        #expect(try shared == vector.hex("derived", "x25519SharedSecretHex"))
        #expect(try X25519.sharedSecret(secretKey: host.secretKey, publicKey: ephemeral.publicKey) == shared)
        let k = try NaClBox.sharedKey(publicKey: host.publicKey, secretKey: ephemeral.secretKey)
        #expect(try k == vector.hex("derived", "boxBeforenmKeyHex"))
        let sealed = try NaClBox.seal(try vector.hex("plaintext", "hex"), nonce: vector.nonce,
                                      recipientPublicKey: host.publicKey, senderSecretKey: ephemeral.secretKey)
        #expect(sealed.count == 492)
        #expect(try sealed == vector.hex("ciphertext", "hex"))
        #expect(try Base64.encode(sealed) == vector.string("ciphertext", "b64"))
        let opened = try NaClBox.open(sealed, nonce: vector.nonce, senderPublicKey: ephemeral.publicKey,
                                      recipientSecretKey: host.secretKey)
        #expect(try opened == vector.hex("plaintext", "hex"))
        var flipped = sealed
        flipped[0] ^= 1
        #expect(throws: CryptoError.self) {
            try NaClBox.open(flipped, nonce: vector.nonce, senderPublicKey: ephemeral.publicKey, recipientSecretKey: host.secretKey)
        }
    }

    // §12 lines 3, 4: the gateway's issue reproduces the wire answer and stores only the proof's hash.
    @Test func issuedChallengeMatchesTheWireAnswer() throws {
        let vector = try Vector()
        let issue = try vector.issue()
        #expect(try issue.challenge.json == #require(vector.json["wire"]?["challengeResponse"]))
        #expect(issue.hostFingerprint == "MAyclgO5Kks57TlY")
        #expect(try issue.transcript == vector.hex("transcript", "hex"))
        #expect(issue.secretHash == "5XraE80lIdP_gUqL58Z3afqDCLRRwMA6tvhi9u706OE")
        #expect(try issue.secretHash == vector.string("gatewayStorage", "secretHash"))
        // The stored hash is neither the secret nor the proof in any encoding.
        let proof = try vector.hex("proof", "hex")
        for leak in [Base64.encode(vector.secret), Base64URL.encode(vector.secret), Hex.encode(vector.secret),
                     Base64.encode(proof), Base64URL.encode(proof), Hex.encode(proof)] {
            #expect(issue.secretHash != leak)
        }
    }

    // §12 line 4
    @Test func proofAndStoredHashes() throws {
        let vector = try Vector()
        let transcript = try vector.hex("transcript", "hex")
        #expect(try HostProof.messagePrefix + transcript == vector.hex("proof", "macInputHex"))
        let proof = HostProof.compute(secret: vector.secret, transcript: transcript)
        #expect(try proof == vector.hex("proof", "hex"))
        #expect(Base64.encode(proof) == "MFwqxFV1g2IiWNVo6owS0UxeSujHV05auAExAQHHxp0=")
        #expect(HostProof.storedHash(ofProof: proof) == "5XraE80lIdP_gUqL58Z3afqDCLRRwMA6tvhi9u706OE")
        let token = try vector.string("gatewayStorage", "sessionTokenExample")
        #expect(HostProof.storedHash(ofSessionToken: token) == "9F3IKnUj0Ul0zqBQ4wKOi_BqjuhVqdYwNOu0-57MIwU")
        let fresh = HostProof.newSessionToken()
        #expect(fresh.utf8.count == 43)
        #expect(try Base64URL.decode(fresh).count == 32)
    }

    // §12 line 5
    @Test func everyHostCheckCaseGivesItsOutcome() throws {
        let vector = try Vector()
        let cases = try #require(vector.json["hostChecks"]?.arrayValue)
        #expect(cases.count == 12)
        let wire = try GatewayChallenge(json: try #require(vector.json["wire"]?["challengeResponse"]))
        for entry in cases {
            let name = try #require(entry["name"]?.stringValue)
            let now = try #require(entry["now"]?.safeIntegerValue)
            var challenge = wire
            if let overrides = entry["challengeOverrides"]?.objectValue {
                for (key, value) in overrides.members {
                    switch key {
                    case "expiresAt": challenge.expiresAt = try #require(value.safeIntegerValue)
                    case "challengeId": challenge.challengeId = try #require(value.stringValue)
                    case "ciphertextB64": challenge.ciphertextB64 = try #require(value.stringValue)
                    case "gatewayEphemeralPublicKeyB64": challenge.gatewayEphemeralPublicKeyB64 = try #require(value.stringValue)
                    default: Issue.record("unknown override \(key) in \(name)")
                    }
                }
            }
            let secretKey = try entry["hostSecretKeyHex"]?.stringValue.map(Hex.decode) ?? vector.hostSecretKey
            let origin = entry["hostGatewayOrigin"]?.stringValue ?? vector.origin
            let answerer = HostChallengeAnswerer(keyPair: try BoxKeyPair(secretKey: secretKey), gatewayOrigin: origin)
            switch entry["expect"]?.stringValue {
            case "proof":
                let proof = try answerer.answer(challenge, nowMs: now)
                #expect(Base64.encode(proof) == entry["proofB64"]?.stringValue, "\(name)")
            case "reject":
                let expected = try #require(entry["failedCheck"]?.stringValue)
                #expect(throws: HostCheckFailure(expected), "\(name)") { try answerer.answer(challenge, nowMs: now) }
            default:
                Issue.record("unknown expectation in \(name)")
            }
        }
    }

    @Test func sessionRequestAndAnswerChecks() throws {
        let vector = try Vector()
        let answerer = HostChallengeAnswerer(keyPair: try vector.host, gatewayOrigin: vector.origin)
        #expect(try answerer.challengeRequest == #require(vector.json["wire"]?["challengeRequest"]))
        let proof = try vector.hex("proof", "hex")
        let sessionRequest = try #require(vector.json["wire"]?["sessionRequest"])
        #expect(answerer.sessionRequest(challengeId: vector.challengeId, proof: proof) == sessionRequest)
        let good = try JSONValue.parse(#"{"sessionToken":"abc","expiresAt":5,"hostFingerprint":"MAyclgO5Kks57TlY"}"#)
        #expect(try answerer.acceptSession(good).sessionToken == "abc")
        let other = try JSONValue.parse(#"{"sessionToken":"abc","expiresAt":5,"hostFingerprint":"Zmh6rfhivXdsj8GL"}"#)
        #expect(throws: HostCheckFailure.sessionFingerprint) { try answerer.acceptSession(other) }
        let extra = try JSONValue.parse(#"{"sessionToken":"abc","expiresAt":5,"hostFingerprint":"MAyclgO5Kks57TlY","x":1}"#)
        #expect(throws: HostCheckFailure.responseShape) { try answerer.acceptSession(extra) }
    }

    @Test func challengeAnswerParsingIsStrict() throws {
        let vector = try Vector()
        var object = try #require(vector.json["wire"]?["challengeResponse"]?.objectValue)
        #expect(throws: Never.self) { try GatewayChallenge(json: .object(object)) }
        object["hostFingerprint"] = "MAyclgO5Kks57TlY"
        #expect(throws: HostCheckFailure.responseShape) { try GatewayChallenge(json: .object(object)) }
        object["hostFingerprint"] = nil
        object["expiresAt"] = 0
        #expect(throws: HostCheckFailure.responseShape) { try GatewayChallenge(json: .object(object)) }
        object["expiresAt"] = .integer(vector.expiresAt)
        object["challengeId"] = .string(String(repeating: "a", count: 513))
        #expect(throws: HostCheckFailure.responseShape) { try GatewayChallenge(json: .object(object)) }
    }

    @Test func canonicalBase64RefusesNonZeroUnusedBits() throws {
        #expect(try GatewayBase64.decode("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=", byteCount: 32).count == 32)
        #expect(throws: EncodingFormatError.self) { try GatewayBase64.decode("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmP=", byteCount: 32) }
        #expect(throws: EncodingFormatError.self) { try GatewayBase64.decode("hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo=", byteCount: 32) }
        #expect(GatewayBase64.hasShape("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmP=", byteCount: 32))
        #expect(!GatewayBase64.hasShape(Base64.encode([UInt8](repeating: 1, count: 31)), byteCount: 32))
    }

    @Test func originRules() {
        for good in ["https://push.example.org", "https://push.example.org:8443", "http://127.0.0.1:8788",
                     "http://localhost", "http://[::1]:9000", "https://gateway.pushgate.test"] {
            #expect(GatewayOrigin.problem(with: good) == nil, "\(good)")
        }
        for bad in ["https://push.example.org/", "https://Push.example.org", "http://push.example.org",
                    "https://push.example.org:443", "https://push.example.org/v1", "push.example.org",
                    "https://push.example.org:0", "https://push.example.org:08443", "https://"] {
            #expect(GatewayOrigin.problem(with: bad) != nil, "\(bad)")
        }
    }

    @Test func randomUUIDsAreLowercaseVersion4() {
        let id = RandomUUID.lowercase()
        #expect(id.count == 36 && id == id.lowercased())
        #expect(Array(id)[14] == "4")
        #expect(RandomUUID.lowercase() != id)
    }
}
