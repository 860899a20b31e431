import Testing
@testable import PushgateCore

@Suite struct CryptoECDSASignatureDERTests {
    static func bytes(_ byte: UInt8, _ count: Int) -> [UInt8] { [UInt8](repeating: byte, count: count) }
    static func integer(_ content: [UInt8]) -> [UInt8] { [0x02, UInt8(content.count)] + content }
    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30, UInt8(content.count)] + content }

    /// `r ‖ s` next to its canonical DER, written out by hand.
    static let pairs: [(p1363: [UInt8], der: [UInt8])] = [
        // r = 1: 31 leading zero bytes dropped; s has its top bit set: 0x00 pad.
        (bytes(0, 31) + [0x01] + [0x80] + bytes(0, 31),
         [0x30, 0x26, 0x02, 0x01, 0x01, 0x02, 0x21, 0x00, 0x80] + bytes(0, 31)),
        // r: one leading zero byte, then a set top bit (dropped, then padded); s: full width, top bit clear.
        ([0x00] + bytes(0xFF, 31) + [0x7F] + bytes(0xFF, 31),
         [0x30, 0x44, 0x02, 0x20, 0x00] + bytes(0xFF, 31) + [0x02, 0x20, 0x7F] + bytes(0xFF, 31)),
        // r: two leading zero bytes, top bit clear after them; s: all ones.
        ([0x00, 0x00, 0x7F] + bytes(0xAB, 29) + bytes(0xFF, 32),
         [0x30, 0x43, 0x02, 0x1E, 0x7F] + bytes(0xAB, 29) + [0x02, 0x21, 0x00] + bytes(0xFF, 32)),
        // Both padded: the longest encoding.
        ([0x80] + bytes(0x01, 31) + [0xC0] + bytes(0x02, 31),
         [0x30, 0x46, 0x02, 0x21, 0x00, 0x80] + bytes(0x01, 31) + [0x02, 0x21, 0x00, 0xC0] + bytes(0x02, 31)),
    ]

    @Test func encodesAndDecodesHandWrittenPairs() {
        for (p1363, der) in Self.pairs {
            #expect(ECDSASignatureDER.encode(p1363: p1363) == der)
            #expect(ECDSASignatureDER.decode(der) == p1363)
        }
        #expect(Self.pairs[3].der.count == ECDSASignatureDER.maxLength)
    }

    @Test func encodeRejectsZeroComponentsAndWrongSizes() {
        let one = Self.bytes(0, 31) + [0x01]
        let zero = Self.bytes(0, 32)
        for signature in [zero + one, one + zero, zero + zero, [], Array((one + one).dropLast()), one + one + [0x01]] {
            #expect(ECDSASignatureDER.encode(p1363: signature) == nil)
        }
    }

    @Test func decodeRejectsEverythingButCanonicalDER() {
        let r = Self.integer([0x01])
        let s = Self.integer([0x00, 0x80] + Self.bytes(0, 31))
        let valid = Self.sequence(r + s)
        #expect(ECDSASignatureDER.decode(valid) == Self.pairs[0].p1363)
        let rejected: [(String, [UInt8])] = [
            ("empty", []),
            ("header only", [0x30]),
            ("empty sequence", [0x30, 0x00]),
            ("one integer", Self.sequence(r)),
            ("three integers", Self.sequence(r + s + r)),
            ("SET tag", [0x31] + valid.dropFirst()),
            ("long-form sequence length", [0x30, 0x81, valid[1]] + valid.dropFirst(2)),
            ("sequence length too long", [0x30, valid[1] + 1] + valid.dropFirst(2)),
            ("sequence length too short", [0x30, valid[1] - 1] + valid.dropFirst(2)),
            ("trailing byte", valid + [0x00]),
            ("trailing byte inside the sequence", Self.sequence(r + s + [0x00])),
            ("BIT STRING tag", Self.sequence([0x03, 0x01, 0x01] + s)),
            ("integer longer than the sequence", Self.sequence([0x02, 0x05, 0x01] + s)),
            ("empty integer", Self.sequence([0x02, 0x00] + s)),
            ("zero r", Self.sequence(Self.integer([0x00]) + s)),
            ("zero s", Self.sequence(r + Self.integer([0x00]))),
            ("negative r", Self.sequence(Self.integer([0x80]) + s)),
            ("negative s", Self.sequence(r + Self.integer([0xFF] + Self.bytes(0, 31)))),
            ("non-minimal r", Self.sequence(Self.integer([0x00, 0x01]) + s)),
            ("non-minimal 33-byte s", Self.sequence(r + Self.integer([0x00, 0x7F] + Self.bytes(0, 31)))),
            ("33 value bytes", Self.sequence(r + Self.integer([0x01] + Self.bytes(0, 32)))),
            ("34 bytes with pad", Self.sequence(r + Self.integer([0x00, 0x80] + Self.bytes(0, 32)))),
            ("long-form integer length", Self.sequence([0x02, 0x81, 0x01, 0x01] + s)),
        ]
        for (name, der) in rejected {
            #expect(ECDSASignatureDER.decode(der) == nil, "\(name)")
        }
    }

    /// OpenSSL writes short INTEGERs when r or s has leading zero bytes (1 in 256 signatures
    /// each) and pads a set top bit (1 in 2); OpenSSL's verify re-encodes and accepts only
    /// canonical DER. Signing until every shape has come up tests both directions against it.
    @Test func realSignaturesOfEveryShapeRoundTripAndVerify() throws {
        let key = P256PrivateKey()
        var seen: Set<String> = []
        let shapes = ["r leading zero", "r top bit", "r plain", "s leading zero", "s top bit", "s plain"]
        for round in 0..<20_000 where seen.count < shapes.count {
            let message = Array("message \(round)".utf8)
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            let der = try #require(ECDSASignatureDER.encode(p1363: signature))
            #expect(ECDSASignatureDER.decode(der) == signature)
            #expect(key.publicKey.verify(signature: signature, message: message))
            for (name, first) in [("r", signature[0]), ("s", signature[32])] {
                seen.insert(first == 0 ? "\(name) leading zero" : first & 0x80 != 0 ? "\(name) top bit" : "\(name) plain")
            }
        }
        #expect(seen == Set(shapes))
    }
}
