/// Why an envelope was not made or not opened. Never carries plaintext or key material.
public struct HapiEnvelopeError: Error, Equatable, CustomStringConvertible {
    /// The rule that failed.
    public enum Reason: String, Sendable, Equatable {
        case tooLong = "envelope longer than 3200 characters"
        case notBase64 = "envelope is not standard padded base64"
        case tooShort = "envelope shorter than nonce and tag"
        case authenticationFailed = "authentication failed"
        case plaintextTooLarge = "plaintext larger than 2372 bytes"
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String { reason.rawValue }
}
