import Testing
import PushgateCore

@Suite struct CryptoP256SignatureTests {
    static func signedMessages() throws -> (signer: P256PublicKey, cases: [JSONValue]) {
        let file = try JSONFixtures.load("vectors/signed-messages.json")
        let signer = try #require(file["signer"]?.stringValue)
        let jwk = try #require(try JSONFixtures.load("vectors/p256-identities.json")[signer]?["publicJwk"]?.objectValue)
        return (try P256PublicKey(jwk: jwk), try #require(file["cases"]?.arrayValue))
    }

    /// On the general path and with the key's own precomputed table (P256TableBudget).
    @Test func validVectorSignaturesVerifyAndInvalidOnesAreRejected() throws {
        let (plain, cases) = try Self.signedMessages()
        let tabled = try P256PublicKey(x: plain.x, y: plain.y, tables: P256TableBudget(maxTables: 1, threshold: 1_000))
        #expect(tabled.prepareTable())
        #expect(cases.count == 8)
        for signer in [plain, tabled] {
            for entry in cases {
                let message = Array(try #require(entry["message"]?.stringValue).utf8)
                let valid = try #require(entry["valid"]?.arrayValue).compactMap(\.stringValue)
                #expect(valid.count == 2)
                for text in valid {
                    #expect(signer.verify(signature: try P1363Signature.decode(base64url: text), message: message))
                }
                let invalid = try #require(entry["invalid"])
                for encoding in ["der_encoded", "padded", "standard_base64"] {
                    let text = try #require(invalid[encoding]?.stringValue)
                    #expect(throws: EncodingFormatError.self, "\(encoding)") { try P1363Signature.decode(base64url: text) }
                }
                let otherKey = try P1363Signature.decode(base64url: try #require(invalid["other_key"]?.stringValue))
                #expect(!signer.verify(signature: otherKey, message: message))
                let tampered = Array(try #require(invalid["tampered_message"]?.stringValue).utf8)
                for text in valid {
                    #expect(!signer.verify(signature: try P1363Signature.decode(base64url: text), message: tampered))
                }
            }
        }
    }

    @Test func lowSMapsTheHighTwinOntoTheLowForm() throws {
        let (_, cases) = try Self.signedMessages()
        for entry in cases {
            let pair = try #require(entry["valid"]?.arrayValue).compactMap(\.stringValue).map { try P1363Signature.decode(base64url: $0) }
            // Same r, different s: one is the other's n − s twin.
            #expect(pair[0].prefix(32) == pair[1].prefix(32))
            #expect(pair[0] != pair[1])
            let low = P1363Signature.lowS(pair[0])
            #expect(P1363Signature.lowS(pair[1]) == low)
            #expect(low == pair[0] || low == pair[1])
            #expect(P1363Signature.lowS(low) == low)
        }
    }

    @Test func lowSLeavesOutOfRangeSUnchanged() throws {
        let r = [UInt8](repeating: 1, count: 32)
        let order = try Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        for s in [order, [UInt8](repeating: 0xFF, count: 32), [UInt8](repeating: 0, count: 32)] {
            #expect(P1363Signature.lowS(r + s) == r + s)
        }
        var justAboveHalf = try Hex.decode("7fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192a9")
        #expect(P1363Signature.lowS(r + justAboveHalf) == r + (try Hex.decode("7fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192a8")))
        justAboveHalf[31] -= 1  // exactly ⌊n/2⌋: already low
        #expect(P1363Signature.lowS(r + justAboveHalf) == r + justAboveHalf)
    }

    @Test func decodeRejectsWrongLengths() throws {
        let valid = "a5elidsb0dodi0bMndB5Z9fh7tXRdAqoksqPwtQsiAqDGBAFgLPEcvk1RuH-n-T_gqq4dhY963iDdyyBSur_rA"
        #expect(try P1363Signature.decode(base64url: valid).count == 64)
        for text in [String(valid.dropLast()), valid + "A", valid + "AA", String(valid.dropLast(2)), "", Base64URL.encode([UInt8](repeating: 1, count: 63))] {
            #expect(throws: EncodingFormatError.self) { try P1363Signature.decode(base64url: text) }
        }
        // 86 chars but with non-zero unused bits in the last one.
        #expect(throws: EncodingFormatError.self) { try P1363Signature.decode(base64url: String(valid.dropLast()) + "B") }
    }

    @Test func verifyRejectsMalformedSignatures() throws {
        let (signer, cases) = try Self.signedMessages()
        let message = Array(try #require(cases[0]["message"]?.stringValue).utf8)
        let valid = try P1363Signature.decode(base64url: try #require(cases[0]["valid"]?.arrayValue?.first?.stringValue))
        let order = try Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        var flipped = valid
        flipped[10] ^= 0x01
        let der = try Base64URL.decode(try #require(cases[0]["invalid"]?["der_encoded"]?.stringValue))
        let zero = [UInt8](repeating: 0, count: 32)
        for signature in [[], Array(valid.prefix(63)), valid + [0], der, flipped, zero + zero, zero + Array(valid.suffix(32)),
                          Array(valid.prefix(32)) + zero, Array(valid.prefix(32)) + order, order + Array(valid.suffix(32))] {
            #expect(!signer.verify(signature: signature, message: message))
        }
        #expect(signer.verify(signature: valid, message: message))
    }

    /// Each key keeps one OpenSSL context that every call copies: 8 tasks signing and verifying
    /// with the same two keys at once must all get right answers (run under
    /// `--sanitize=thread` to look for races too).
    @Test func signsAndVerifiesConcurrentlyWithSharedKeys() async throws {
        let key = P256PrivateKey()
        let publicKey = key.publicKey
        let messages = (0..<16).map { Array("message \($0)".utf8) }
        let signatures = try messages.map { try key.sign($0) }
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var failures = 0
                    for round in 0..<50 {
                        let index = (worker + round) % messages.count
                        let next = (index + 1) % messages.count
                        if !publicKey.verify(signature: signatures[index], message: messages[index]) { failures += 1 }
                        if publicKey.verify(signature: signatures[index], message: messages[next]) { failures += 1 }
                        if round % 5 == 0 {
                            let fresh = try? key.sign(messages[index])
                            if fresh.map({ publicKey.verify(signature: $0, message: messages[index]) }) != true { failures += 1 }
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
