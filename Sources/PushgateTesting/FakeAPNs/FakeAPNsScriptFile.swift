import PushgateCore

/// The `--script` file of `pushgate fake-apns`: a JSON object from device token to
/// `{"status":410,"reason":"Unregistered","delayMs":250}` (`reason` and `delayMs` optional).
public enum FakeAPNsScriptFile {
    /// A script file that does not have that shape.
    public struct FormatError: Error, CustomStringConvertible, Equatable {
        public let message: String
        public var description: String { "invalid script: \(message)" }
    }

    /// Parses the file's bytes strictly: unknown keys, non-integer numbers or a status outside
    /// 200…599 are errors, so a typo never turns into a silent 200.
    public static func parse(_ bytes: [UInt8]) throws(FormatError) -> [String: ScriptedResponse] {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw FormatError(message: "\(error)") }
        guard let tokens = value.objectValue else { throw FormatError(message: "expected an object from token to response") }
        var scripts: [String: ScriptedResponse] = [:]
        for (token, entry) in tokens.members {
            guard !token.isEmpty else { throw FormatError(message: "empty token") }
            scripts[token] = try response(entry, token: token)
        }
        return scripts
    }

    private static func response(_ entry: JSONValue, token: String) throws(FormatError) -> ScriptedResponse {
        guard let fields = entry.objectValue else { throw FormatError(message: "\(token): expected an object") }
        if let unknown = fields.keys.first(where: { !["status", "reason", "delayMs"].contains($0) }) {
            throw FormatError(message: "\(token): unknown key \(unknown)")
        }
        guard case .integer(let status)? = fields["status"], (200...599).contains(status) else {
            throw FormatError(message: "\(token): status must be an integer from 200 to 599")
        }
        var reason: APNsReason?
        switch fields["reason"] {
        case nil: break
        case .string(let text)? where !text.isEmpty: reason = APNsReason(rawValue: text)
        default: throw FormatError(message: "\(token): reason must be a non-empty string")
        }
        var delay = 0
        switch fields["delayMs"] {
        case nil: break
        case .integer(let milliseconds)? where (0...600_000).contains(milliseconds): delay = Int(milliseconds)
        default: throw FormatError(message: "\(token): delayMs must be an integer from 0 to 600000")
        }
        return ScriptedResponse(status: Int(status), reason: reason, delayMilliseconds: delay)
    }
}
