/// Why a JSON text was refused, and the byte offset where the parser stopped.
///
/// The description names the offset and the rule broken, never the input itself.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    /// The rule the input broke.
    public enum Reason: String, Sendable, Equatable {
        case unexpectedEnd = "unexpected end of input"
        case unexpectedCharacter = "unexpected character"
        case invalidNumber = "invalid number"
        case numberOutOfRange = "number too large to be finite"
        case invalidEscape = "invalid escape sequence"
        case unpairedSurrogate = "unpaired surrogate in a \\u escape"
        case invalidUTF8 = "invalid UTF-8"
        case controlCharacter = "unescaped control character in a string"
        case duplicateKey = "duplicate object key"
        case tooDeep = "nesting deeper than the limit"
        case trailingCharacters = "unexpected data after the value"
    }

    /// The rule the input broke.
    public let reason: Reason
    /// The byte offset in the input where the problem was found.
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason.rawValue)" }
}
