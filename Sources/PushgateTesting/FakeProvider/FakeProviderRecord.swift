import PushgateCore

/// A request a fake provider answered, as it keeps it and as `--record` writes it.
public protocol FakeProviderRecord: Sendable {
    /// The regular headers in arrival order (pseudo-headers left out).
    var headers: [(name: String, value: String)] { get }
    /// The compact JSON line `pushgate fake-… --record` writes for this request.
    func recordLine() -> String
}

extension FakeProviderRecord {
    /// The value of the first header called `name`, or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The headers as a record line writes them: an object, with the `authorization` value (a
    /// provider token or an access token) replaced by `[redacted]` so record files never hold one.
    var redactedHeaders: JSONObject {
        var object = JSONObject()
        for (name, value) in headers {
            object[name] = .string(name == "authorization" ? "[redacted]" : value)
        }
        return object
    }
}
