extension JSONValue {
    /// Compact JSON with members in their order: `JSON.stringify` string escaping (`/` and
    /// non-ASCII raw) and JavaScript number format. A non-finite `.double` is written as
    /// `null`, as `JSON.stringify` does.
    public func serialized() -> String { String(decoding: serializedBytes(), as: UTF8.self) }

    /// The UTF-8 of ``serialized()``.
    public func serializedBytes() -> [UInt8] {
        var writer = JSONWriter(sortsKeys: false)
        writer.write(self)
        return writer.bytes
    }

    /// Canonical JSON: ``serialized()`` with object members sorted by the UTF-16 code units of
    /// their keys at every depth.
    ///
    /// - Important: protocol/hapi-push.md §2 — the plaintext of every envelope is these bytes.
    public func canonicalized() -> String { String(decoding: canonicalBytes(), as: UTF8.self) }

    /// The UTF-8 of ``canonicalized()``.
    public func canonicalBytes() -> [UInt8] {
        var writer = JSONWriter(sortsKeys: true)
        writer.write(self)
        return writer.bytes
    }
}

extension JSONObject {
    /// Compact JSON of this object; see ``JSONValue/serialized()``.
    public func serialized() -> String { JSONValue.object(self).serialized() }

    /// Canonical JSON of this object; see ``JSONValue/canonicalized()``.
    public func canonicalized() -> String { JSONValue.object(self).canonicalized() }
}

/// Appends JSON text into one growing byte buffer.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    let sortsKeys: Bool

    init(sortsKeys: Bool) {
        self.sortsKeys = sortsKeys
        bytes.reserveCapacity(512)
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .integer(let number): bytes += String(number).utf8
        case .double(let number):
            if number.isFinite { bytes += JSNumber.format(number).utf8 } else { append("null") }
        case .string(let text): write(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            let members = object.members
            if sortsKeys {
                let order = members.indices.sorted { UTF16Order.precedes(members[$0].key, members[$1].key) }
                for (position, memberIndex) in order.enumerated() {
                    writeMember(members[memberIndex], first: position == 0)
                }
            } else {
                for (position, member) in members.enumerated() { writeMember(member, first: position == 0) }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func writeMember(_ member: (key: String, value: JSONValue), first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        write(member.key)
        bytes.append(UInt8(ascii: ":"))
        write(member.value)
    }

    /// A quoted string, escaped as `JSON.stringify` does (protocol/hapi-push.md §2 rule 5).
    mutating func write(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(for: byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        }
    }

    private mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
