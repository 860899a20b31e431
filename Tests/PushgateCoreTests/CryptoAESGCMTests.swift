import Testing
@testable import PushgateCore

@Suite struct CryptoAESGCMTests {
    let key = (0..<32).map { UInt8($0) }
    let nonce = (0..<12).map { UInt8(0xA0 + $0) }
    let plaintext = Array("the quick brown fox jumps over the lazy dog".utf8)
    let aad = Array("header".utf8)

    // NIST GCM test case 15 / McGrew–Viega test case 14 (AES-256, zero key, zero IV, 16 zero bytes).
    @Test func knownAnswer() throws {
        let sealed = try AESGCM.seal(key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
                                     plaintext: [UInt8](repeating: 0, count: 16))
        #expect(Hex.encode(sealed) == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")
    }

    @Test func roundTripsWithAndWithoutAADAndEmptyPlaintext() throws {
        for (text, extra) in [(plaintext, aad), (plaintext, []), ([], aad), ([], [])] {
            let sealed = try AESGCM.seal(key: key, nonce: nonce, plaintext: text, aad: extra)
            #expect(sealed.count == text.count + 16)
            #expect(try AESGCM.open(key: key, nonce: nonce, sealed: sealed, aad: extra) == text)
        }
    }

    @Test func rejectsEveryTamperedByte() throws {
        let sealed = try AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
        for index in sealed.indices {  // ciphertext bytes, then the tag
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: tampered, aad: aad) }
        }
    }

    @Test func rejectsWrongKeyNonceAADAndTruncation() throws {
        let sealed = try AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
        var otherKey = key
        otherKey[0] ^= 0x80
        var otherNonce = nonce
        otherNonce[11] ^= 0x01
        #expect(throws: CryptoError.self) { try AESGCM.open(key: otherKey, nonce: nonce, sealed: sealed, aad: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: otherNonce, sealed: sealed, aad: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: sealed, aad: Array("headeR".utf8)) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: sealed, aad: []) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: Array(sealed.dropLast()), aad: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: Array(sealed.dropFirst()), aad: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: Array(sealed.prefix(15)), aad: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce, sealed: sealed + [0], aad: aad) }
    }

    @Test func rejectsWrongSizes() {
        #expect(throws: CryptoError.self) { try AESGCM.seal(key: Array(key.prefix(16)), nonce: nonce, plaintext: plaintext) }
        #expect(throws: CryptoError.self) { try AESGCM.seal(key: key, nonce: Array(nonce.prefix(8)), plaintext: plaintext) }
        #expect(throws: CryptoError.self) { try AESGCM.open(key: key, nonce: nonce + [0], sealed: [UInt8](repeating: 0, count: 32)) }
    }
}
