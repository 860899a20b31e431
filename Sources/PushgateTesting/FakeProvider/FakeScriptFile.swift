import PushgateCore

/// What the `--script` files of `pushgate-dev fake-apns` and `pushgate-dev fake-fcm` share: a JSON object
/// from token to that token's entry, or to a sequence of entries (a non-empty array, applied to
/// the token's successive valid requests, the last one repeating), read strictly so that a typo
/// never turns into a silent 200.
public enum FakeScriptFile {
    /// A script file that does not have its shape.
    public struct FormatError: Error, CustomStringConvertible, Equatable {
        public let message: String
        public var description: String { "invalid script: \(message)" }
    }

    /// The most entries one token's sequence may hold.
    public static let sequenceLimit = 1000

    /// Parses `bytes` as an object from non-empty token to an entry or an array of entries,
    /// each entry read by `entry` (given the entry and a label naming it in errors).
    static func parse<Script>(_ bytes: [UInt8], entry: (_ value: JSONValue, _ label: String) throws(FormatError) -> Script)
        throws(FormatError) -> [String: [Script]] {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw FormatError(message: "\(error)") }
        guard let tokens = value.objectValue else { throw FormatError(message: "expected an object from token to response") }
        var scripts: [String: [Script]] = [:]
        for (token, value) in tokens.members {
            guard !token.isEmpty else { throw FormatError(message: "empty token") }
            guard let entries = value.arrayValue else {
                scripts[token] = [try entry(value, token)]
                continue
            }
            guard (1...sequenceLimit).contains(entries.count) else {
                throw FormatError(message: "\(token): a sequence holds 1 to \(sequenceLimit) responses")
            }
            var sequence: [Script] = []
            for (index, value) in entries.enumerated() { sequence.append(try entry(value, "\(token)[\(index)]")) }
            scripts[token] = sequence
        }
        return scripts
    }

    /// An entry's `delayMs`: absent (0) or an integer from 0 to 600000.
    static func delay(_ fields: JSONObject, label: String) throws(FormatError) -> Int {
        switch fields["delayMs"] {
        case nil: return 0
        case .integer(let milliseconds)? where (0...600_000).contains(milliseconds): return Int(milliseconds)
        default: throw FormatError(message: "\(label): delayMs must be an integer from 0 to 600000")
        }
    }

    /// An entry's `retryAfter`: absent (no header) or an integer number of seconds from 0 to 86400.
    static func retryAfter(_ fields: JSONObject, label: String) throws(FormatError) -> Int? {
        switch fields["retryAfter"] {
        case nil: return nil
        case .integer(let seconds)? where (0...86_400).contains(seconds): return Int(seconds)
        default: throw FormatError(message: "\(label): retryAfter must be an integer from 0 to 86400")
        }
    }
}
