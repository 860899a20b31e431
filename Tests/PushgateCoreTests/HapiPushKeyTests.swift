import Testing
import PushgateCore

@Suite struct HapiPushKeyTests {
    static let padded = Base64.encode(Array(0..<32))

    // protocol/hapi-push.md §11 register-ios-ok and register-unpadded
    @Test func acceptsPaddedAndUnpaddedKeys() throws {
        #expect(Self.padded.utf8.count == 44)
        #expect(try HapiPushKey(base64: Self.padded).storedForm == Self.padded)
        let unpadded = String(Self.padded.dropLast())
        #expect(try HapiPushKey(base64: unpadded).storedForm == Self.padded)
        #expect(try HapiPushKey(base64: unpadded + "==").storedForm == Self.padded)
    }

    @Test func ignoresTheUnusedLowBitsOfTheLastCharacter() throws {
        // The 43rd character of 0x00…0x1f is "8" (value 60); "9", "+" and "/" differ only in the low 2 bits.
        let prefix = String(Self.padded.prefix(42))
        for last in ["8", "9", "+", "/"] {
            #expect(try HapiPushKey(base64: prefix + last + "=").storedForm == Self.padded)
        }
    }

    // protocol/hapi-push.md §11 register-bad-keys
    @Test(arguments: [
        Base64.encode(Array(repeating: 1, count: 31)), Base64.encode(Array(repeating: 1, count: 33)),
        Base64.encode([1, 2, 3]), "", String(padded.prefix(40)) + "-_A=", String(padded.dropLast()) + "===",
        " " + padded, padded + "\n", String(padded.dropLast()) + "é",
    ])
    func refusesKeysThatAreNot32Bytes(text: String) {
        #expect(throws: WireFieldError(field: "pushKey", problem: "must be base64 of 32 bytes")) {
            try HapiPushKey(base64: text)
        }
    }

    @Test func neverShowsTheKey() throws {
        let key = try HapiPushKey(base64: Self.padded)
        #expect(String(describing: key) == "HapiPushKey(redacted)")
        #expect(HapiPushKey(bytes: [1, 2]) == nil)
        #expect(HapiPushKey.random() != key)
    }
}
