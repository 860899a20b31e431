/// Hexadecimal (base16) text.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Encodes `bytes` as lower-case hex.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex of either case; odd length or any other character is an error.
    public static func decode(_ text: String) throws -> [UInt8] {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else {
            throw EncodingFormatError(format: "hex", reason: "odd length \(chars.count)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else {
                throw EncodingFormatError(format: "hex", reason: "non-hex character near offset \(index)")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Whether `byte` is a hex digit of either case.
    package static func isDigit(_ byte: UInt8) -> Bool { value(byte) != nil }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A text that is not the strict, canonical form of an encoding (base64, base64url, hex).
public struct EncodingFormatError: Error, Equatable, CustomStringConvertible {
    /// The encoding that was expected, e.g. `base64url`.
    public let format: String
    /// What was wrong, without echoing the input (it may be a secret).
    public let reason: String

    public init(format: String, reason: String) {
        self.format = format
        self.reason = reason
    }

    public var description: String { "invalid \(format): \(reason)" }
}
