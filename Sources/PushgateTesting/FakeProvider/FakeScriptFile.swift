import PushgateCore

/// What the `--script` files of `pushgate fake-apns` and `pushgate fake-fcm` share: a JSON object
/// from token to that token's entry, read strictly so that a typo never turns into a silent 200.
public enum FakeScriptFile {
    /// A script file that does not have its shape.
    public struct FormatError: Error, CustomStringConvertible, Equatable {
        public let message: String
        public var description: String { "invalid script: \(message)" }
    }

    /// Parses `bytes` as an object from non-empty token to entry, each read by `entry`.
    static func parse<Script>(_ bytes: [UInt8], entry: (_ value: JSONValue, _ token: String) throws(FormatError) -> Script)
        throws(FormatError) -> [String: Script] {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw FormatError(message: "\(error)") }
        guard let tokens = value.objectValue else { throw FormatError(message: "expected an object from token to response") }
        var scripts: [String: Script] = [:]
        for (token, value) in tokens.members {
            guard !token.isEmpty else { throw FormatError(message: "empty token") }
            scripts[token] = try entry(value, token)
        }
        return scripts
    }

    /// An entry's `delayMs`: absent (0) or an integer from 0 to 600000.
    static func delay(_ fields: JSONObject, token: String) throws(FormatError) -> Int {
        switch fields["delayMs"] {
        case nil: return 0
        case .integer(let milliseconds)? where (0...600_000).contains(milliseconds): return Int(milliseconds)
        default: throw FormatError(message: "\(token): delayMs must be an integer from 0 to 600000")
        }
    }
}
