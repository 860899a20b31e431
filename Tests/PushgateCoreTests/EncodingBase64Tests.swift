import Testing
@testable import PushgateCore

@Suite struct EncodingBase64Tests {
    // RFC 4648 §10 test vectors.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test func base64MatchesRFC4648() throws {
        for (plain, encoded) in Self.rfc4648 {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func base64URLMatchesRFC4648WithoutPadding() throws {
        for (plain, encoded) in Self.rfc4648 {
            let unpadded = String(encoded.filter { $0 != "=" })
            #expect(Base64URL.encode(Array(plain.utf8)) == unpadded)
            #expect(try Base64URL.decode(unpadded) == Array(plain.utf8))
        }
    }

    @Test func alphabetsDiffer() throws {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(throws: EncodingFormatError.self) { try Base64URL.decode("+/+/") }
        #expect(throws: EncodingFormatError.self) { try Base64.decode("-_-_") }
    }

    @Test func roundTripsEveryLength() throws {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(try Base64.decode(Base64.encode(bytes)) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test(arguments: ["Zg=", "Zg", "Zm8", "Zg===", "=", "==", "Zm9v=", "Z", "Zm9vY", " Zm9v", "Zm9v\n", "Zm 9v", "Zh==", "Zm9=", "Zm=v"])
    func base64RejectsNonCanonical(_ text: String) {
        #expect(throws: EncodingFormatError.self) { try Base64.decode(text) }
    }

    @Test func base64PaddingMayBeOptional() throws {
        #expect(try Base64.decode("Zm8", requirePadding: false) == Array("fo".utf8))
        #expect(try Base64.decode("Zm8=", requirePadding: false) == Array("fo".utf8))
        #expect(throws: EncodingFormatError.self) { try Base64.decode("Zm8==", requirePadding: false) }
        #expect(throws: EncodingFormatError.self) { try Base64.decode("Zh", requirePadding: false) }
    }

    @Test(arguments: ["Zg==", "Zg=", "Zh", "Zm9", "Z", "Zm9vY", "Zm9v ", "Zm\t9v", "Zm+v", "Zm/v", "Zé"])
    func base64URLRejectsNonCanonical(_ text: String) {
        #expect(throws: EncodingFormatError.self) { try Base64URL.decode(text) }
    }

    @Test func base64URLRejectsNonZeroUnusedBitsInLastChar() throws {
        let x = "vXxzuIsum0ztpiAistqL4TGTpbVu3Cbn33hC4kzQtes"
        #expect(try Base64URL.decode(x).count == 32)
        // 43 chars carry 258 bits: the last char's low 2 bits are unused and must be zero.
        #expect(throws: EncodingFormatError.self) { try Base64URL.decode(String(x.dropLast()) + "t") }
        #expect(throws: EncodingFormatError.self) { try Base64URL.decode(String(x.dropLast()) + "u") }
    }
}
