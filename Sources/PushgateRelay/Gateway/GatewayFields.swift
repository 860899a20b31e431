import PushgateCore

/// Strict reading of gateway request objects: exact member sets, types and lengths in chars
/// (UTF-16 code units). Any fault is `invalid_request`.
///
/// - Important: protocol/gateway.md §1.1 and §2–§4 — unknown, missing or mistyped members, wrong
///   lengths or enum values → 400 `invalid_request`.
struct GatewayFields {
    let object: JSONObject

    /// The request body as one object whose members all belong to `required` or `optional`,
    /// with every `required` member present and `v` equal to 1 when `versioned`.
    init(_ value: JSONValue, required: Set<String>, optional: Set<String> = [], versioned: Bool = false) throws(RelayError) {
        guard let object = value.objectValue,
              object.keys.allSatisfy({ required.contains($0) || optional.contains($0) }),
              required.allSatisfy({ object[$0] != nil }) else { throw .invalidRequest }
        if versioned, object["v"]?.safeIntegerValue != 1 { throw .invalidRequest }
        self.object = object
    }

    /// The body bytes as JSON, then as ``init(_:required:optional:versioned:)``; `v` is required.
    static func body(_ bytes: [UInt8], required: Set<String>, optional: Set<String> = []) throws(RelayError) -> GatewayFields {
        guard let value = try? JSONValue.parse(bytes) else { throw .invalidRequest }
        return try GatewayFields(value, required: required.union(["v"]), optional: optional, versioned: true)
    }

    /// A string member of `chars` length.
    func string(_ key: String, chars: ClosedRange<Int>) throws(RelayError) -> String {
        guard let text = object[key]?.stringValue, chars.contains(text.utf16.count) else { throw .invalidRequest }
        return text
    }

    /// An optional string member: absent → nil; present, it must be a string of `chars` length.
    func optionalString(_ key: String, chars: ClosedRange<Int>) throws(RelayError) -> String? {
        guard object[key] != nil else { return nil }
        return try string(key, chars: chars)
    }

    /// A string member that must be one of `values`.
    func oneOf(_ key: String, _ values: Set<String>) throws(RelayError) -> String {
        guard let text = object[key]?.stringValue, values.contains(text) else { throw .invalidRequest }
        return text
    }

    /// An array member of distinct values from `values`, at most `values.count` of them.
    func distinctValues(_ key: String, from values: Set<String>) throws(RelayError) -> [String] {
        guard let elements = object[key]?.arrayValue else { throw .invalidRequest }
        var seen = Set<String>()
        return try elements.map { element throws(RelayError) in
            guard let text = element.stringValue, values.contains(text), seen.insert(text).inserted else { throw .invalidRequest }
            return text
        }
    }

    /// A nested object member, read as strictly.
    func nested(_ key: String, required: Set<String>, optional: Set<String> = []) throws(RelayError) -> GatewayFields {
        guard let value = object[key] else { throw .invalidRequest }
        return try GatewayFields(value, required: required, optional: optional)
    }
}
