import PushgateCore

/// The `--script` file of `pushgate fake-fcm`: a JSON object from registration token to either
/// a preset name (``FakeFCMError/presets``: `"unregistered"`, `"invalid-token"`…) or an object
/// `{"preset"|"status", "errorStatus", "errorCode", "message", "fields", "delayMs"}`.
public enum FakeFCMScriptFile {
    private typealias FormatError = FakeScriptFile.FormatError

    private static let keys: Set<String> = ["preset", "status", "errorStatus", "errorCode", "message", "fields", "delayMs"]

    /// Parses the file's bytes strictly: unknown keys or presets, a status outside 200…599, or
    /// an error status without `errorStatus` are errors.
    public static func parse(_ bytes: [UInt8]) throws(FakeScriptFile.FormatError) -> [String: FakeFCMScript] {
        try FakeScriptFile.parse(bytes, entry: script)
    }

    private static func script(_ entry: JSONValue, token: String) throws(FormatError) -> FakeFCMScript {
        if let name = entry.stringValue { return FakeFCMScript(try preset(name, token: token)) }
        guard let fields = entry.objectValue else { throw FormatError(message: "\(token): expected a preset name or an object") }
        if let unknown = fields.keys.first(where: { !keys.contains($0) }) { throw FormatError(message: "\(token): unknown key \(unknown)") }
        let delay = try FakeScriptFile.delay(fields, token: token)
        if let name = fields["preset"] {
            guard let name = name.stringValue, fields.count == (fields["delayMs"] == nil ? 1 : 2) else {
                throw FormatError(message: "\(token): preset goes alone, or with delayMs")
            }
            return FakeFCMScript(try preset(name, token: token), delayMilliseconds: delay)
        }
        guard case .integer(let status)? = fields["status"], (200...599).contains(status) else {
            throw FormatError(message: "\(token): status must be an integer from 200 to 599")
        }
        if status == 200 {
            guard fields.count == (fields["delayMs"] == nil ? 1 : 2) else { throw FormatError(message: "\(token): status 200 takes only delayMs") }
            return FakeFCMScript(nil, delayMilliseconds: delay)
        }
        guard let errorStatus = fields["errorStatus"]?.stringValue, !errorStatus.isEmpty else {
            throw FormatError(message: "\(token): errorStatus (e.g. UNAVAILABLE) is required with an error status")
        }
        var violations: [String] = []
        if let list = fields["fields"] {
            guard let items = list.arrayValue?.compactMap(\.stringValue), items.count == list.arrayValue?.count else {
                throw FormatError(message: "\(token): fields must be an array of strings")
            }
            violations = items
        }
        let error = FakeFCMError(status: Int(status), errorStatus: errorStatus,
                                 message: fields["message"]?.stringValue ?? "Scripted error.",
                                 fcmErrorCode: fields["errorCode"]?.stringValue, fieldViolations: violations)
        return FakeFCMScript(error, delayMilliseconds: delay)
    }

    private static func preset(_ name: String, token: String) throws(FormatError) -> FakeFCMError {
        guard let error = FakeFCMError.presets[name] else {
            throw FormatError(message: "\(token): unknown preset \(name) (known: \(FakeFCMError.presets.keys.sorted().joined(separator: ", ")))")
        }
        return error
    }
}
