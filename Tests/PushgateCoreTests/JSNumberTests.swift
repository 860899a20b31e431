import Testing
import PushgateCore

@Suite struct JSNumberTests {
    /// Decodes the little-endian IEEE-754 hex of a vector.
    static func double(fromLittleEndianHex hex: String) -> Double {
        let bytes = Array(hex.utf8)
        var bits: UInt64 = 0
        for index in stride(from: 0, to: bytes.count, by: 2).reversed() {
            bits = bits << 8 | UInt64(UInt8(String(decoding: bytes[index..<index + 2], as: UTF8.self), radix: 16)!)
        }
        return Double(bitPattern: bits)
    }

    @Test func everyVectorFormatsAsJavaScript() throws {
        let cases = try JSONFixtures.cases("vectors/js-numbers.json")
        #expect(cases.count == 20)
        for entry in cases {
            let hex = try #require(entry["hex"]?.stringValue)
            let expected = try #require(entry["js"]?.stringValue)
            #expect(JSNumber.format(Self.double(fromLittleEndianHex: hex)) == expected, "hex \(hex)")
        }
    }

    @Test(arguments: [
        (123e-20, "1.23e-18"), (1.5, "1.5"), (-1e21, "-1e+21"), (1e20, "100000000000000000000"),
        (0.1, "0.1"), (1.0e-6 * 1.5, "0.0000015"), (2.5e-7, "2.5e-7"), (.leastNonzeroMagnitude, "5e-324"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"), (123456.789, "123456.789"),
        (9007199254740992, "9007199254740992"), (-9007199254740992, "-9007199254740992"),
        (.nan, "NaN"), (.infinity, "Infinity"), (-.infinity, "-Infinity"), (-0.0, "0"),
    ])
    func edgeCases(value: Double, expected: String) {
        #expect(JSNumber.format(value) == expected)
    }
}
