/// A text that is not the strict, canonical form of an encoding (base64, base64url, hex).
public struct EncodingFormatError: Error, Equatable, CustomStringConvertible {
    /// The encoding that was expected, e.g. `base64url`.
    public let format: String
    /// What was wrong, without echoing the input (it may be a secret).
    public let reason: String

    public init(format: String, reason: String) {
        self.format = format
        self.reason = reason
    }

    public var description: String { "invalid \(format): \(reason)" }
}
