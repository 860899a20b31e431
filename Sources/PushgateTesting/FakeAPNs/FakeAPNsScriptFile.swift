import PushgateCore

/// The `--script` file of `pushgate-dev fake-apns`: a JSON object from device token to
/// `{"status":410,"reason":"Unregistered","delayMs":250,"retryAfter":30}` (all but `status`
/// optional), or to an array of them (``FakeScriptFile``).
public enum FakeAPNsScriptFile {
    private typealias FormatError = FakeScriptFile.FormatError

    private static let keys: Set<String> = ["status", "reason", "delayMs", "retryAfter"]

    /// Parses the file's bytes strictly: unknown keys, non-integer numbers, a status outside
    /// 200…599 or an empty or over-long sequence are errors.
    public static func parse(_ bytes: [UInt8]) throws(FakeScriptFile.FormatError) -> [String: [ScriptedResponse]] {
        try FakeScriptFile.parse(bytes, entry: response)
    }

    private static func response(_ entry: JSONValue, label: String) throws(FormatError) -> ScriptedResponse {
        guard let fields = entry.objectValue else { throw FormatError(message: "\(label): expected an object") }
        if let unknown = fields.keys.first(where: { !keys.contains($0) }) {
            throw FormatError(message: "\(label): unknown key \(unknown)")
        }
        guard case .integer(let status)? = fields["status"], (200...599).contains(status) else {
            throw FormatError(message: "\(label): status must be an integer from 200 to 599")
        }
        var reason: APNsReason?
        switch fields["reason"] {
        case nil: break
        case .string(let text)? where !text.isEmpty: reason = APNsReason(rawValue: text)
        default: throw FormatError(message: "\(label): reason must be a non-empty string")
        }
        return ScriptedResponse(status: Int(status), reason: reason, delayMilliseconds: try FakeScriptFile.delay(fields, label: label),
                                retryAfterSeconds: try FakeScriptFile.retryAfter(fields, label: label))
    }
}
