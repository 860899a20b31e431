extension JSONValue {
    /// The nesting depth (arrays and objects) `parse` accepts by default.
    public static let defaultMaxDepth = 64

    /// Parses a complete JSON text strictly (RFC 8259): UTF-8 validated, no trailing commas,
    /// comments, leading zeros, BOM or unpaired surrogates; duplicate keys (the same bytes)
    /// refused; numbers without fraction or exponent that fit in 64 bits kept exact as
    /// `.integer`, every other number a finite `.double`.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { parse(utf8: $0, maxDepth: maxDepth) }.get()
    }

    /// Parses the UTF-8 of `text` by the same rules as the byte form.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parse(utf8: $0, maxDepth: maxDepth) }.get()
    }

    /// The borrowing closures rethrow untyped errors, so the typed error travels out as a `Result`.
    private static func parse(utf8 buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(input: buffer, maxDepth: maxDepth)
            return try parser.parseDocument()
        }
    }
}

/// A recursive-descent parser over borrowed UTF-8 bytes; lives only inside `JSONValue.parse`.
private struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.input = input
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == input.count else { throw JSONParseError(.trailingCharacters, at: index) }
        return value
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < input.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        switch input[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw JSONParseError(.unexpectedCharacter, at: index)
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONObject {
        guard depth <= maxDepth else { throw JSONParseError(.tooDeep, at: index) }
        index += 1  // {
        var members: [(key: String, value: JSONValue)] = []
        // Small objects are checked for duplicates by a scan; larger ones through a set. Keys are
        // told apart by their bytes, as JavaScript and JSON Schema do: Swift's == would take a
        // precomposed and a decomposed "é" for one key.
        var seen = Set<KeyBytes>()
        var usesSet = false
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return JSONObject(uniqueMembers: members)
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard try peek() == UInt8(ascii: "\"") else { throw JSONParseError(.unexpectedCharacter, at: index) }
            let key = try parseString()
            if !usesSet, members.count >= 16 {
                seen = Set(members.map { KeyBytes(key: $0.key) })
                usesSet = true
            }
            let duplicate = usesSet ? !seen.insert(KeyBytes(key: key)).inserted : members.contains { $0.key.utf8.elementsEqual(key.utf8) }
            if duplicate { throw JSONParseError(.duplicateKey, at: keyOffset) }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            members.append((key, try parseValue(depth: depth)))
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return JSONObject(uniqueMembers: members)
            default: throw JSONParseError(.unexpectedCharacter, at: index)
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> [JSONValue] {
        guard depth <= maxDepth else { throw JSONParseError(.tooDeep, at: index) }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return elements
            default: throw JSONParseError(.unexpectedCharacter, at: index)
            }
        }
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote. Runs without escapes are validated in
    /// place and copied once.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // "
        let start = index
        var decoded: [UInt8]?  // allocated at the first escape
        var runStart = start
        while true {
            guard index < input.count else { throw JSONParseError(.unexpectedEnd, at: index) }
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: input[runStart..<index])
                index += 1
                guard var bytes = decoded else { return String(decoding: run, as: UTF8.self) }
                bytes.append(contentsOf: run)
                return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                if decoded == nil { decoded = [] }
                decoded!.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<index]))
                try parseEscape(into: &decoded!)
                runStart = index
            case 0..<0x20:
                throw JSONParseError(.controlCharacter, at: index)
            case 0x80...:
                index += try utf8SequenceLength()
            default:
                index += 1
            }
        }
    }

    /// Decodes one escape at `index` (the backslash) and appends its UTF-8.
    private mutating func parseEscape(into bytes: inout [UInt8]) throws(JSONParseError) {
        let escapeOffset = index
        index += 1
        guard index < input.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        let letter = input[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(letter)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xDC00...0xDFFF).contains(scalar) { throw JSONParseError(.unpairedSurrogate, at: escapeOffset) }
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < input.count, input[index] == UInt8(ascii: "\\"), input[index + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError(.unpairedSurrogate, at: escapeOffset)
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseError(.unpairedSurrogate, at: escapeOffset) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(of: scalar, to: &bytes)
        default:
            throw JSONParseError(.invalidEscape, at: escapeOffset)
        }
    }

    /// Appends the UTF-8 of a scalar value (never a surrogate here).
    private func appendUTF8(of scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(scalar))
        case 0x80..<0x800:
            bytes += [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)]
        case 0x800..<0x10000:
            bytes += [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        default:
            bytes += [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F),
                      UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= input.count else { throw JSONParseError(.unexpectedEnd, at: input.count) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(.invalidEscape, at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence at `index` (RFC 3629 §4: no overlong
    /// forms, no surrogates, nothing above U+10FFFF).
    private func utf8SequenceLength() throws(JSONParseError) -> Int {
        let lead = input[index]
        let second: ClosedRange<UInt8>
        let length: Int
        switch lead {
        case 0xC2...0xDF: second = 0x80...0xBF; length = 2
        case 0xE0: second = 0xA0...0xBF; length = 3
        case 0xE1...0xEC, 0xEE...0xEF: second = 0x80...0xBF; length = 3
        case 0xED: second = 0x80...0x9F; length = 3
        case 0xF0: second = 0x90...0xBF; length = 4
        case 0xF1...0xF3: second = 0x80...0xBF; length = 4
        case 0xF4: second = 0x80...0x8F; length = 4
        default: throw JSONParseError(.invalidUTF8, at: index)
        }
        guard index + length <= input.count else { throw JSONParseError(.invalidUTF8, at: index) }
        guard second.contains(input[index + 1]) else { throw JSONParseError(.invalidUTF8, at: index + 1) }
        for offset in 2..<length where !(0x80...0xBF).contains(input[index + offset]) {
            throw JSONParseError(.invalidUTF8, at: index + offset)
        }
        return length
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = input[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        // Accumulated as a negative number so that Int64.min fits.
        var negated: Int64 = 0
        var overflow = false
        guard index < input.count, isDigit(input[index]) else { throw JSONParseError(.invalidNumber, at: index) }
        if input[index] == UInt8(ascii: "0") {
            index += 1
            if index < input.count, isDigit(input[index]) { throw JSONParseError(.invalidNumber, at: index) }
        } else {
            while index < input.count, isDigit(input[index]) {
                let (times10, o1) = negated.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(Int64(input[index] - UInt8(ascii: "0")))
                overflow = overflow || o1 || o2
                negated = next
                index += 1
            }
        }
        var isInteger = true
        if index < input.count, input[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try skipDigits()
        }
        if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
            try skipDigits()
        }
        if isInteger && !overflow {
            if negative { return .integer(negated) }
            if negated != .min { return .integer(-negated) }
        }
        // Swift's Double(String) rounds correctly, like JavaScript's Number parsing.
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONParseError(.numberOutOfRange, at: start) }
        return .double(value)
    }

    private mutating func skipDigits() throws(JSONParseError) {
        guard index < input.count, isDigit(input[index]) else { throw JSONParseError(.invalidNumber, at: index) }
        while index < input.count, isDigit(input[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONParseError) -> UInt8 {
        guard index < input.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        return input[index]
    }

    private mutating func expect(_ byte: UInt8) throws(JSONParseError) {
        guard try peek() == byte else { throw JSONParseError(.unexpectedCharacter, at: index) }
        index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count {
            guard index + offset < input.count else { throw JSONParseError(.unexpectedEnd, at: input.count) }
            guard input[index + offset] == bytes[offset] else { throw JSONParseError(.unexpectedCharacter, at: index + offset) }
        }
        index += count
    }
}

/// An object key compared and hashed by its UTF-8 bytes.
private struct KeyBytes: Hashable {
    let key: String

    static func == (lhs: KeyBytes, rhs: KeyBytes) -> Bool { lhs.key.utf8.elementsEqual(rhs.key.utf8) }

    func hash(into hasher: inout Hasher) {
        for byte in key.utf8 { hasher.combine(byte) }
    }
}

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
