import PushgateCore

/// The `--script` file of `pushgate-dev fake-fcm`: a JSON object from registration token to either
/// a preset name (``FakeFCMError/presets``: `"unregistered"`, `"invalid-token"`…), an object
/// `{"preset"|"status", "errorStatus", "errorCode", "message", "fields", "delayMs", "retryAfter"}`,
/// or an array of those (``FakeScriptFile``).
public enum FakeFCMScriptFile {
    private typealias FormatError = FakeScriptFile.FormatError

    private static let keys: Set<String> = ["preset", "status", "errorStatus", "errorCode", "message", "fields", "delayMs", "retryAfter"]
    /// The keys that may go with a preset or with status 200.
    private static let timingKeys: Set<String> = ["delayMs", "retryAfter"]

    /// Parses the file's bytes strictly: unknown keys or presets, a status outside 200…599, an
    /// error status without `errorStatus`, or an empty or over-long sequence are errors.
    public static func parse(_ bytes: [UInt8]) throws(FakeScriptFile.FormatError) -> [String: [FakeFCMScript]] {
        try FakeScriptFile.parse(bytes, entry: script)
    }

    private static func script(_ entry: JSONValue, label: String) throws(FormatError) -> FakeFCMScript {
        if let name = entry.stringValue { return FakeFCMScript(try preset(name, label: label)) }
        guard let fields = entry.objectValue else { throw FormatError(message: "\(label): expected a preset name or an object") }
        if let unknown = fields.keys.first(where: { !keys.contains($0) }) { throw FormatError(message: "\(label): unknown key \(unknown)") }
        let delay = try FakeScriptFile.delay(fields, label: label)
        let retryAfter = try FakeScriptFile.retryAfter(fields, label: label)
        if let name = fields["preset"] {
            guard let name = name.stringValue, fields.keys.allSatisfy({ $0 == "preset" || timingKeys.contains($0) }) else {
                throw FormatError(message: "\(label): preset goes alone, or with delayMs and retryAfter")
            }
            return FakeFCMScript(try preset(name, label: label), delayMilliseconds: delay, retryAfterSeconds: retryAfter)
        }
        guard case .integer(let status)? = fields["status"], (200...599).contains(status) else {
            throw FormatError(message: "\(label): status must be an integer from 200 to 599")
        }
        if status == 200 {
            guard fields.keys.allSatisfy({ $0 == "status" || timingKeys.contains($0) }) else {
                throw FormatError(message: "\(label): status 200 takes only delayMs and retryAfter")
            }
            return FakeFCMScript(nil, delayMilliseconds: delay, retryAfterSeconds: retryAfter)
        }
        guard let errorStatus = fields["errorStatus"]?.stringValue, !errorStatus.isEmpty else {
            throw FormatError(message: "\(label): errorStatus (e.g. UNAVAILABLE) is required with an error status")
        }
        var violations: [String] = []
        if let list = fields["fields"] {
            guard let items = list.arrayValue?.compactMap(\.stringValue), items.count == list.arrayValue?.count else {
                throw FormatError(message: "\(label): fields must be an array of strings")
            }
            violations = items
        }
        let error = FakeFCMError(status: Int(status), errorStatus: errorStatus,
                                 message: fields["message"]?.stringValue ?? "Scripted error.",
                                 fcmErrorCode: fields["errorCode"]?.stringValue, fieldViolations: violations)
        return FakeFCMScript(error, delayMilliseconds: delay, retryAfterSeconds: retryAfter)
    }

    private static func preset(_ name: String, label: String) throws(FormatError) -> FakeFCMError {
        guard let error = FakeFCMError.presets[name] else {
            throw FormatError(message: "\(label): unknown preset \(name) (known: \(FakeFCMError.presets.keys.sorted().joined(separator: ", ")))")
        }
        return error
    }
}
