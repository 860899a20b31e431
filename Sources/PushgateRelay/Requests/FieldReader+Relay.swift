import PushgateCore

/// The relay answers every field fault with the same `invalid_request` code.
extension FieldReader {
    /// The reader of a request body that must be one JSON object.
    static func relayBody(_ body: [UInt8]) throws(RelayError) -> FieldReader {
        guard let value = try? JSONValue.parse(body), let reader = try? FieldReader(value, path: "") else {
            throw .invalidRequest
        }
        return reader
    }

    /// Runs strict reads; any field fault becomes `invalid_request`.
    func relay<T>(_ read: (FieldReader) throws -> T) throws(RelayError) -> T {
        do { return try read(self) } catch { throw .invalidRequest }
    }

    /// A required member that must be an object.
    func relayObject(_ key: String) throws(RelayError) -> JSONObject {
        guard let object = self.object[key]?.objectValue else { throw .invalidRequest }
        return object
    }

    /// A required member that must be an array.
    func relayArray(_ key: String) throws(RelayError) -> [JSONValue] {
        guard let array = self.object[key]?.arrayValue else { throw .invalidRequest }
        return array
    }
}
