/// A JSON value that keeps integers exact and object members in their original order.
///
/// Wire bytes that are signed, hashed or encrypted are produced from this type by the
/// project's own serializer, never by Foundation's encoders.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer that fits in 64 bits, kept exact.
    case integer(Int64)
    /// Any other finite number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// An ordered list of JSON object members. Keys are unique.
public struct JSONObject: Sendable, Equatable {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// Members in the given order; a later duplicate key replaces the earlier value in place.
    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        for (key, value) in pairs { self[key] = value }
    }

    /// Members known to have distinct keys (the parser has already checked), kept as given.
    init(uniqueMembers: [(key: String, value: JSONValue)]) {
        members = uniqueMembers
    }

    /// The member keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    /// The value of `key`, or `nil`. Setting `nil` removes the member; setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            let index = members.firstIndex(where: { $0.key == key })
            switch (index, newValue) {
            case let (i?, value?): members[i].value = value
            case let (i?, nil): members.remove(at: i)
            case let (nil, value?): members.append((key, value))
            case (nil, nil): break
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
