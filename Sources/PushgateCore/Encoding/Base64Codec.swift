/// One base64 alphabet with strict, canonical encode and decode (RFC 4648 §4 and §5).
///
/// Strict means: only alphabet characters (no whitespace), a length that some byte count
/// produces, padding exactly where the caller's rule says, and zero unused bits in the last
/// character. Together these make the decoding canonical: the bytes re-encode to the same text.
struct Base64Codec: Sendable {
    /// Whether `=` padding must, may or must not be present.
    enum Padding: Sendable {
        case required, optional, forbidden
    }

    let name: String
    private let alphabet: [UInt8]
    private let values: [UInt8]

    private static let invalid: UInt8 = 0xFF

    /// The standard alphabet (`+` `/`).
    static let standard = Base64Codec(name: "base64", last2: "+/")
    /// The URL and filename safe alphabet (`-` `_`).
    static let url = Base64Codec(name: "base64url", last2: "-_")

    private init(name: String, last2: String) {
        self.name = name
        alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + Array(last2.utf8)
        var values = [UInt8](repeating: Self.invalid, count: 256)
        for (index, char) in alphabet.enumerated() { values[Int(char)] = UInt8(index) }
        self.values = values
    }

    func encode(_ bytes: [UInt8], padded: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            appendChars(of: chunk, count: 4, to: &out)
            index += 3
        }
        switch bytes.count - index {
        case 1:
            appendChars(of: UInt32(bytes[index]) << 16, count: 2, to: &out)
            if padded { out += [0x3D, 0x3D] }
        case 2:
            appendChars(of: UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8, count: 3, to: &out)
            if padded { out.append(0x3D) }
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func appendChars(of chunk: UInt32, count: Int, to out: inout [UInt8]) {
        for position in 0..<count {
            out.append(alphabet[Int((chunk >> (18 - 6 * UInt32(position))) & 0x3F)])
        }
    }

    func decode(_ text: String, padding: Padding) throws -> [UInt8] {
        var text = text
        return try text.withUTF8 { try decode(utf8: $0, padding: padding) }
    }

    private func decode(utf8 input: UnsafeBufferPointer<UInt8>, padding: Padding) throws -> [UInt8] {
        var dataCount = input.count
        while dataCount > 0, input[dataCount - 1] == 0x3D, input.count - dataCount < 2 { dataCount -= 1 }
        let padCount = input.count - dataCount
        let remainder = dataCount % 4
        guard remainder != 1 else { throw error("length \(input.count) is not a whole number of bytes") }
        let expectedPad = remainder == 0 ? 0 : 4 - remainder
        switch (padding, padCount) {
        case (.forbidden, 1...):
            throw error("padding `=` is not allowed")
        case (.required, _) where padCount != expectedPad,
             (.optional, 1...) where padCount != expectedPad:
            throw error("wrong padding")
        default:
            break
        }

        var out: [UInt8] = []
        out.reserveCapacity(dataCount / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<dataCount {
            let value = values[Int(input[index])]
            guard value != Self.invalid else { throw error("character outside the alphabet at offset \(index)") }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, else two texts would decode to the same bytes.
        guard accumulator == 0 else { throw error("non-zero unused bits in the last character") }
        return out
    }

    private func error(_ reason: String) -> EncodingFormatError {
        EncodingFormatError(format: name, reason: reason)
    }
}
