import PushgateCore

/// A request a fake provider answered or reset, as it keeps it and as `--record` writes it.
public protocol FakeProviderRecord: Sendable {
    /// The regular headers in arrival order (pseudo-headers left out).
    var headers: [(name: String, value: String)] { get }
    /// The status answered; 0 when the stream was reset instead.
    var status: Int { get }
    /// Whether the stream was reset (RST_STREAM) instead of answered.
    var reset: Bool { get }
    /// The compact JSON line `pushgate-dev fake-… --record` writes for this request.
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

    /// `status` as a record line writes it: null for a reset stream, which got none.
    var recordedStatus: JSONValue { reset ? .null : .integer(Int64(status)) }

    /// The line of `members`, with `"reset":true` added last for a reset stream (answered
    /// requests' lines have no `reset` member, as before resets existed).
    func recordLine(_ members: [(String, JSONValue)]) -> String {
        var object = JSONObject(members)
        if reset { object["reset"] = .bool(true) }
        return JSONValue.object(object).serialized()
    }
}
