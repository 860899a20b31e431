/// An ordered list of HTTP header fields with case-insensitive name lookup.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as received or as it will be sent.
    public typealias Field = (name: String, value: String)

    private var fields: [Field]

    /// Headers in the given order.
    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The number of fields, repeated names counted each time.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The value of the first field named `name` (any letter case), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.equalIgnoringASCIICase($0.name, name) }?.value
    }

    /// Every value of the fields named `name` (any letter case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalIgnoringASCIICase($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` (any letter case) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.equalIgnoringASCIICase($0.name, name) }
    }

    /// Appends a field, keeping any field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` (any letter case) with one field.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { Self.equalIgnoringASCIICase($0.name, name) }
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison; header names and tokens such as `chunked` are ASCII (RFC 9110 §5.1).
    static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        return zip(x, y).allSatisfy { Self.lower($0) == Self.lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
