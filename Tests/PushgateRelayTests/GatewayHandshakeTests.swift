import Foundation
import Testing
import PushgateCore
import PushgateTestSupport

/// protocol/gateway.md §12 lines 6–14: the challenge and session routes and bearer sessions, over
/// loopback against a running relay.
@Suite(.hangLimit(.minutes(1))) struct GatewayHandshakeTests {
    // §12 line 6
    @Test func roundTripHasExactMembers() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        let now = harness.clock.nowMilliseconds
        let challengeReply = try await harness.challenge(host)
        #expect(challengeReply.status == 200)
        #expect(challengeReply.headers["content-type"] == "application/json")
        let challengeObject = try #require(challengeReply.json?.objectValue)
        #expect(challengeObject.keys == ["challengeId", "gatewayEphemeralPublicKeyB64", "nonceB64", "ciphertextB64", "expiresAt"])
        #expect(challengeObject["expiresAt"]?.safeIntegerValue == now + 10_000)
        let challenge = try GatewayChallenge(json: .object(challengeObject))
        #expect(challenge.challengeId == challenge.challengeId.lowercased() && challenge.challengeId.count == 36)
        let proof = try host.answer(challenge, nowMs: now)
        let sessionReply = try await harness.answer(host, challengeId: challenge.challengeId, proof: proof)
        #expect(sessionReply.status == 200)
        let sessionObject = try #require(sessionReply.json?.objectValue)
        #expect(sessionObject.keys.sorted() == ["expiresAt", "hostFingerprint", "sessionToken"])
        #expect(sessionObject["hostFingerprint"]?.stringValue == host.hostFingerprint)
        #expect(sessionObject["expiresAt"]?.safeIntegerValue == now + 86_400_000)
        let token = try #require(sessionObject["sessionToken"]?.stringValue)
        #expect(token.utf8.count == 43)
        #expect(try Base64URL.decode(token).count == 32)
        #expect(try host.acceptSession(.object(sessionObject)).sessionToken == token)
        #expect(harness.gateway.counter("challenge_issued") == 1 && harness.gateway.counter("session_issued") == 1)
        await harness.stop()
    }

    // §12 line 7
    @Test func aChallengeIsSingleUseEvenUnderConcurrency() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        let first = try await harness.issuedChallenge(host)
        let proof = try host.answer(first, nowMs: harness.clock.nowMilliseconds)
        #expect(try await harness.answer(host, challengeId: first.challengeId, proof: proof).status == 200)
        let again = try await harness.answer(host, challengeId: first.challengeId, proof: proof)
        #expect(again.status == 401 && again.text == #"{"error":"invalid_proof"}"#)

        for _ in 0..<5 {
            let challenge = try await harness.issuedChallenge(host)
            let proof = try host.answer(challenge, nowMs: harness.clock.nowMilliseconds)
            let replies = try await withThrowingTaskGroup(of: GatewayHarness.Reply.self) { group in
                for _ in 0..<2 { group.addTask { try await harness.answer(host, challengeId: challenge.challengeId, proof: proof) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.map(\.status).sorted() == [200, 401])
            #expect(replies.compactMap(\.error) == ["invalid_proof"])
        }
        await harness.stop()
    }

    // §12 line 8, with the vector's gatewayTiming edges.
    @Test func expiryHasNoGraceAndPruneKeepsRowsThirtySeconds() async throws {
        let harness = try await GatewayHarness()
        let start = harness.clock.nowMilliseconds
        let host = try harness.newHost()
        // Accepted exactly at expiresAt (the host's own checks allow it too).
        let onTime = try await harness.issuedChallenge(host)
        await harness.advance(byMs: 10_000)
        let proof = try host.answer(onTime, nowMs: harness.clock.nowMilliseconds)
        #expect(try await harness.answer(host, challengeId: onTime.challengeId, proof: proof).status == 200)

        // B expires at start + 29 999 and is pruned by the 60 s job at start + 60 000 (= B's expiry + 30 001);
        // C expires at start + 30 000 and survives that prune (= C's expiry + 30 000).
        await harness.advance(byMs: 9_999)
        let pruned = try await harness.issuedChallenge(host)
        let prunedProof = try host.answer(pruned, nowMs: harness.clock.nowMilliseconds)
        await harness.advance(byMs: 1)
        let kept = try await harness.issuedChallenge(host)
        let keptProof = try host.answer(kept, nowMs: harness.clock.nowMilliseconds)
        #expect(pruned.expiresAt == start + 29_999 && kept.expiresAt == start + 30_000)

        await harness.advance(byMs: 10_000)  // pruned.expiresAt + 1
        let late = try await harness.answer(host, challengeId: pruned.challengeId, proof: prunedProof)
        #expect(late.status == 401 && late.error == "invalid_proof")
        #expect(try harness.count("SELECT count(*) FROM push_challenges WHERE consumed_at IS NULL") == 2, "a late proof consumes nothing")

        await harness.advance(byMs: 30_000)  // start + 60 000: the challenge prune runs
        let gone = try await harness.answer(host, challengeId: pruned.challengeId, proof: prunedProof)
        #expect(gone.status == 401 && gone.error == "invalid_challenge")
        let stillThere = try await harness.answer(host, challengeId: kept.challengeId, proof: keptProof)
        #expect(stillThere.status == 401 && stillThere.error == "invalid_proof")
        await harness.stop()
    }

    // §12 line 9
    @Test func aWrongProofDoesNotConsumeTheChallenge() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        let challenge = try await harness.issuedChallenge(host)
        let proof = try host.answer(challenge, nowMs: harness.clock.nowMilliseconds)
        var wrong = proof
        wrong[31] ^= 0x01
        let refused = try await harness.answer(host, challengeId: challenge.challengeId, proof: wrong)
        #expect(refused.status == 401 && refused.text == #"{"error":"invalid_proof"}"#)
        // The right proof with non-zero unused bits (same 44-char shape) is refused the same way.
        let right = Base64.encode(proof)
        let lastIndex = right.index(right.endIndex, offsetBy: -2)
        let nonCanonical = right.replacingCharacters(in: lastIndex...lastIndex, with: Self.sameBitsSibling(right[lastIndex]))
        let body = JSONValue.object(JSONObject([("v", 1), ("challengeId", .string(challenge.challengeId)), ("proofB64", .string(nonCanonical))]))
        let encoded = try await harness.call("POST", "/v1/host/session", json: body)
        #expect(encoded.status == 401 && encoded.error == "invalid_proof")
        #expect(try await harness.answer(host, challengeId: challenge.challengeId, proof: proof).status == 200)
        await harness.stop()
    }

    /// A base64 character with the same top four bits and different unused low bits.
    static func sameBitsSibling(_ character: Character) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let index = alphabet.firstIndex(of: character)!
        return String(alphabet[index ^ 0x01])
    }

    // §12 line 10
    @Test func unknownChallengeAndShortProof() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        let unknown = try await harness.answer(host, challengeId: RandomUUID.lowercase(), proof: SecureRandom.bytes(32))
        #expect(unknown.status == 401 && unknown.text == #"{"error":"invalid_challenge"}"#)
        let challenge = try await harness.issuedChallenge(host)
        let short = try await harness.answer(host, challengeId: challenge.challengeId, proof: SecureRandom.bytes(31))
        #expect(short.status == 400 && short.text == #"{"error":"invalid_request"}"#)
        for body in [#"{"v":1,"challengeId":"","proofB64":"MFwqxFV1g2IiWNVo6owS0UxeSujHV05auAExAQHHxp0="}"#,
                     #"{"v":1,"challengeId":"\#(String(repeating: "a", count: 129))","proofB64":"MFwqxFV1g2IiWNVo6owS0UxeSujHV05auAExAQHHxp0="}"#,
                     #"{"v":1,"challengeId":"x","proofB64":"MFwqxFV1g2IiWNVo6owS0UxeSujHV05auAExAQHHxp0","extra":1}"#,
                     #"{"v":1,"challengeId":"x"}"#, "not json"] {
            let reply = try await harness.call("POST", "/v1/host/session", body: Array(body.utf8))
            #expect(reply.status == 400 && reply.error == "invalid_request", "\(body.prefix(40))")
        }
        #expect(harness.gateway.counter("session_rejected") == 7)
        await harness.stop()
    }

    // §12 lines 11 and 12
    @Test func badChallengeRequestsWriteNothingAndOnlyASessionWritesTheHost() async throws {
        let harness = try await GatewayHarness()
        let bodies = [
            #"{"v":1,"hostPublicKeyB64":"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmP="}"#,
            #"{"v":1,"hostPublicKeyB64":"\#(Base64.encode([UInt8](repeating: 7, count: 31)))"}"#,
            #"{"v":2,"hostPublicKeyB64":"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo="}"#,
            #"{"v":1,"hostPublicKeyB64":"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=","hostFingerprint":"MAyclgO5Kks57TlY"}"#,
            #"{"v":1,"hostPublicKeyB64":"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo="}"#,
            #"{"hostPublicKeyB64":"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo="}"#,
        ]
        for body in bodies {
            let reply = try await harness.call("POST", "/v1/host/challenge", body: Array(body.utf8))
            #expect(reply.status == 400 && reply.text == #"{"error":"invalid_request"}"#, "\(body)")
        }
        #expect(try harness.count("SELECT count(*) FROM push_challenges") == 0)
        #expect(harness.gateway.counter("challenge_rejected") == bodies.count)

        let host = try harness.newHost()
        let challenge = try await harness.issuedChallenge(host)
        #expect(try harness.count("SELECT count(*) FROM push_challenges") == 1)
        #expect(try harness.count("SELECT count(*) FROM push_hosts") == 0, "issuing a challenge writes no host row")
        await harness.advance(byMs: 1_234)
        let proof = try host.answer(challenge, nowMs: harness.clock.nowMilliseconds)
        #expect(try await harness.answer(host, challengeId: challenge.challengeId, proof: proof).status == 200)
        let hosts = try harness.rows("SELECT host_fingerprint, host_public_key, last_seen_at, created_at FROM push_hosts", columns: 4)
        let now = String(harness.clock.nowMilliseconds)
        #expect(hosts == [[host.hostFingerprint, Base64.encode(host.keyPair.publicKey), now, now]])

        // §12 line 4: no column anywhere holds the proof (in any encoding) or the session token.
        let dump = try harness.rows("""
            SELECT challenge_id || host_fingerprint || host_public_key || secret_hash || coalesce(transcript, '') FROM push_challenges
            UNION ALL SELECT token_hash || host_fingerprint FROM push_sessions
            """).compactMap { $0[0] }.joined()
        for leak in [Base64.encode(proof), Base64URL.encode(proof), Hex.encode(proof)] { #expect(!dump.contains(leak)) }
        #expect(try harness.rows("SELECT secret_hash FROM push_challenges") == [[HostProof.storedHash(ofProof: proof)]])
        await harness.stop()
    }

    // §12 line 13
    @Test func tokensAreStoredHashedAndANewSessionEndsTheOldOne() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        let first = try await harness.handshake(host)
        #expect(try harness.rows("SELECT token_hash FROM push_sessions") == [[HostProof.storedHash(ofSessionToken: first)]])
        #expect(HostProof.storedHash(ofSessionToken: "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8") == "9F3IKnUj0Ul0zqBQ4wKOi_BqjuhVqdYwNOu0-57MIwU")
        #expect(try await harness.call("GET", "/v1/devices", session: first).status == 200)
        let second = try await harness.handshake(host)
        let old = try await harness.call("GET", "/v1/devices", session: first)
        #expect(old.status == 401 && old.text == #"{"error":"invalid_token"}"#)
        #expect(try await harness.call("GET", "/v1/devices", session: second).status == 200)
        #expect(try harness.count("SELECT count(*) FROM push_sessions") == 1)
        // Another host's session is untouched.
        let other = try await harness.handshake(try harness.newHost())
        #expect(try await harness.call("GET", "/v1/devices", session: second).status == 200)
        #expect(try await harness.call("GET", "/v1/devices", session: other).status == 200)
        await harness.stop()
    }

    // §12 line 14
    @Test func bearerRules() async throws {
        let harness = try await GatewayHarness()
        let session = try await harness.handshake(try harness.newHost())
        let expiresAt = harness.clock.nowMilliseconds + 86_400_000
        for headers in [[], ["Authorization: Bearer"], ["Authorization: Basic \(session)"], ["Authorization: Bearer \(HostProof.newSessionToken())"]] {
            let reply = try await harness.call("GET", "/v1/devices", headers: headers)
            #expect(reply.status == 401 && reply.text == #"{"error":"invalid_token"}"#, "\(headers)")
        }
        #expect(try await harness.call("GET", "/v1/devices", headers: ["Authorization: bearer \(session)"]).status == 200)
        #expect(try await harness.call("GET", "/v1/devices", headers: ["Authorization: BEARER   \(session)  "]).status == 200)
        harness.clock.set(milliseconds: expiresAt)
        #expect(try await harness.call("GET", "/v1/devices", session: session).status == 200)
        harness.clock.set(milliseconds: expiresAt + 1)
        let expired = try await harness.call("GET", "/v1/devices", session: session)
        #expect(expired.status == 401 && expired.text == #"{"error":"session_expired"}"#)
        let send = try await harness.call("POST", "/v1/send", json: GatewayHarness.send(["r"]), session: session)
        #expect(send.status == 401 && send.error == "session_expired")
        #expect(harness.gateway.counter("request_error") == 6)
        await harness.stop()
    }
}
