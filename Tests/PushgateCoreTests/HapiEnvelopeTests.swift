import Testing
@testable import PushgateCore

@Suite struct HapiEnvelopeTests {
    static let vectors = "vectors/hapi-envelopes.json"

    static func key(_ hex: String) throws -> HapiPushKey {
        try #require(HapiPushKey(bytes: try Hex.decode(hex)))
    }

    // protocol/hapi-push.md §11 golden-envelopes and open-and-tamper
    @Test func everyVectorMatchesByteForByteAndOpens() throws {
        let file = try JSONFixtures.load(Self.vectors)
        let key = try Self.key(try #require(file["keyHex"]?.stringValue))
        let nonce = try Hex.decode(try #require(file["nonceHex"]?.stringValue))
        #expect(file["aad"]?.stringValue.map { Array($0.utf8) } == HapiEnvelope.aad)
        let cases = try #require(file["cases"]?.arrayValue)
        #expect(cases.count == 3)
        for entry in cases {
            let plaintext = try #require(entry["canonicalPlaintext"]?.stringValue)
            let envelope = try #require(entry["envelope"]?.stringValue)
            let payloadValue = try #require(entry["payload"])
            #expect(payloadValue.canonicalized() == plaintext)
            let payload = try HapiPayload(plaintext: payloadValue.serializedBytes())
            #expect(payload.canonicalPlaintext == Array(plaintext.utf8))
            #expect(try HapiEnvelope.seal(Array(plaintext.utf8), key: key, nonce: nonce) == envelope)
            #expect(envelope.utf8.count == HapiEnvelope.length(forPlaintextByteCount: plaintext.utf8.count))
            #expect(try HapiEnvelope.open(envelope, key: key) == Array(plaintext.utf8))
        }
        let ready = try #require(cases.first)
        #expect(ready["canonicalPlaintext"]?.stringValue?.utf8.count == 95)
        #expect(ready["envelope"]?.stringValue?.utf8.count == 164)
        let tampered = try #require(file["tampered"]?["flipLastByte"]?.stringValue)
        #expect(throws: HapiEnvelopeError(.authenticationFailed)) { try HapiEnvelope.open(tampered, key: key) }
    }

    @Test func sharedEnvelopeVectorMatches() throws {
        let file = try JSONFixtures.load("hapi/envelope-v1.json")
        let key = try Self.key(try #require(file["key_hex"]?.stringValue))
        let nonce = try Hex.decode(try #require(file["nonce_hex"]?.stringValue))
        let plaintext = Array(try #require(file["plaintext"]?.stringValue).utf8)
        let envelope = try #require(file["envelope_b64"]?.stringValue)
        #expect(file["aad"]?.stringValue.map { Array($0.utf8) } == HapiEnvelope.aad)
        #expect(try HapiEnvelope.seal(plaintext, key: key, nonce: nonce) == envelope)
        #expect(try HapiEnvelope.open(envelope, key: key) == plaintext)
    }

    @Test func refusesWrongKeysAndMalformedEnvelopes() throws {
        let file = try JSONFixtures.load(Self.vectors)
        let key = try Self.key(try #require(file["keyHex"]?.stringValue))
        let envelope = try #require(file["cases"]?.arrayValue?.first?["envelope"]?.stringValue)
        let otherKey = try #require(HapiPushKey(bytes: Array(repeating: 7, count: 32)))
        #expect(throws: HapiEnvelopeError(.authenticationFailed)) { try HapiEnvelope.open(envelope, key: otherKey) }
        let short = Base64.encode(Array(repeating: 1, count: 27))
        #expect(throws: HapiEnvelopeError(.tooShort)) { try HapiEnvelope.open(short, key: key) }
        #expect(throws: HapiEnvelopeError(.notBase64)) { try HapiEnvelope.open(String(envelope.dropLast()), key: key) }
        #expect(throws: HapiEnvelopeError(.notBase64)) { try HapiEnvelope.open("!!!!" + envelope.dropFirst(4), key: key) }
        #expect(throws: HapiEnvelopeError(.tooLong)) { try HapiEnvelope.open(String(repeating: "A", count: 3204), key: key) }
        let flippedNonce = "B" + envelope.dropFirst()
        #expect(throws: HapiEnvelopeError(.authenticationFailed)) { try HapiEnvelope.open(flippedNonce, key: key) }
    }

    // protocol/hapi-push.md §11 random-nonce
    @Test func productionSealsDrawFreshNonces() throws {
        let key = HapiPushKey.random()
        let plaintext = Array(#"{"a":"b"}"#.utf8)
        let first = try HapiEnvelope.seal(plaintext, key: key)
        let second = try HapiEnvelope.seal(plaintext, key: key)
        #expect(first != second)
        #expect(try HapiEnvelope.open(first, key: key) == plaintext)
        #expect(try HapiEnvelope.open(second, key: key) == plaintext)
    }

    // protocol/hapi-push.md §11 cap-boundary (the envelope side)
    @Test func capsEnvelopesAt3200Characters() throws {
        let key = HapiPushKey.random()
        #expect(HapiEnvelope.length(forPlaintextByteCount: 2372) == 3200)
        #expect(HapiEnvelope.length(forPlaintextByteCount: 2373) == 3204)
        let largest = try HapiEnvelope.seal(Array(repeating: 0x61, count: 2372), key: key)
        #expect(largest.utf8.count == 3200)
        #expect(try HapiEnvelope.open(largest, key: key).count == 2372)
        #expect(throws: HapiEnvelopeError(.plaintextTooLarge)) {
            try HapiEnvelope.seal(Array(repeating: 0x61, count: 2373), key: key)
        }
    }
}
