extension JSONValue {
    /// The text of a `.string`, else `nil`.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The flag of a `.bool`, else `nil`.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// An `.integer`, or a `.double` with an integral value in the `Int64` range; else `nil`.
    public var int64Value: Int64? {
        switch self {
        case .integer(let number): return number
        case .double(let number): return Int64(exactly: number)
        default: return nil
        }
    }

    /// ``int64Value`` when it is a JavaScript safe integer (|n| ≤ 2^53 − 1), as
    /// `Number.isSafeInteger` checks; else `nil`.
    public var safeIntegerValue: Int64? {
        let limit: Int64 = 9_007_199_254_740_991
        guard let number = int64Value, -limit...limit ~= number else { return nil }
        return number
    }

    /// Any number as a `Double` (an `.integer` rounded as JavaScript would read it); else `nil`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    /// The members of an `.object`, else `nil`.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements of an `.array`, else `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether this is `.null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an `.object`; `nil` when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}
