/// Reads typed members of one request object strictly, naming failures by field path.
struct FieldReader {
    let object: JSONObject
    /// The object's own path (`contentState`, `contentState.items[0]`), or "" at the top.
    let path: String

    init(_ value: JSONValue, path: String) throws(WireFieldError) {
        guard let object = value.objectValue else {
            throw WireFieldError(field: path.isEmpty ? "body" : path, problem: "must be an object")
        }
        self.object = object
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Refuses any member outside `allowed`.
    func requireOnly(_ allowed: Set<String>) throws(WireFieldError) {
        if let extra = object.keys.first(where: { !allowed.contains($0) }) {
            throw WireFieldError(field: name(extra), problem: "is not allowed")
        }
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    func string(_ key: String) throws(WireFieldError) -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    func optionalString(_ key: String) throws(WireFieldError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else { throw WireFieldError(field: name(key), problem: "must be a string") }
        return text
    }

    func number(_ key: String) throws(WireFieldError) -> Double {
        guard let value = try optionalNumber(key) else { throw missing(key) }
        return value
    }

    /// A finite number (NaN and Infinity cannot come from JSON text, but may be built in code).
    func optionalNumber(_ key: String) throws(WireFieldError) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            throw WireFieldError(field: name(key), problem: "must be a finite number")
        }
        return number
    }

    func integer(_ key: String) throws(WireFieldError) -> Int64 {
        guard let value = try optionalInteger(key) else { throw missing(key) }
        return value
    }

    /// A JavaScript safe integer.
    func optionalInteger(_ key: String) throws(WireFieldError) -> Int64? {
        guard let value = object[key] else { return nil }
        guard let number = value.safeIntegerValue else {
            throw WireFieldError(field: name(key), problem: "must be an integer")
        }
        return number
    }

    func optionalArray(_ key: String) throws(WireFieldError) -> [JSONValue]? {
        guard let value = object[key] else { return nil }
        guard let elements = value.arrayValue else { throw WireFieldError(field: name(key), problem: "must be an array") }
        return elements
    }

    func status(_ key: String) throws(WireFieldError) -> LiveActivityStatus {
        guard let status = LiveActivityStatus(rawValue: try string(key)) else {
            throw WireFieldError(field: name(key), problem: "must be one of \(LiveActivityStatus.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return status
    }

    private func missing(_ key: String) -> WireFieldError {
        WireFieldError(field: name(key), problem: "is required")
    }
}
