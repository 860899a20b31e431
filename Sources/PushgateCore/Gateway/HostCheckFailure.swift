/// A check a host makes before answering a challenge or accepting a session failed; it is
/// named, never shown with values.
///
/// - Important: protocol/gateway.md §2.9 — "report a failing check by name only".
public struct HostCheckFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check's name, e.g. `box-open` or `gatewayOrigin`.
    public let check: String

    public init(_ check: String) { self.check = check }

    public var description: String { "the gateway's answer failed the host check \(check)" }

    /// The JSON answer is not exactly the members and sizes a host accepts.
    public static let responseShape = HostCheckFailure("response-shape")
    /// Checks 1–3: a key, nonce or ciphertext that is not canonical b64 of the right size.
    public static let envelopeEncoding = HostCheckFailure("envelope-encoding")
    /// Check 4: the Poly1305 tag does not verify.
    public static let boxOpen = HostCheckFailure("box-open")
    /// Checks 5–6: prefix, minimum length or length field of the plaintext.
    public static let plaintextLayout = HostCheckFailure("plaintext-layout")
    /// Checks 7–8: the transcript does not parse into exactly ten distinct fields.
    public static let transcriptStructure = HostCheckFailure("transcript-structure")
    /// Check 9: `issuedAt` is not 8 bytes or exceeds 2^53 − 1.
    public static let issuedAtFormat = HostCheckFailure("issuedAt-format")
    /// Check 10: issued more than 30 s in the host's future.
    public static let issuedAtNotFuture = HostCheckFailure("issuedAt-not-future")
    /// Check 11: expired more than 30 s ago by the host's clock.
    public static let notExpired = HostCheckFailure("not-expired")
    /// Checks 12–13: the window exceeds the TTL, or the transcript's `expiresAt` differs from the JSON's.
    public static let windowConsistent = HostCheckFailure("window+expiry-consistent")
    /// The session answer names another host.
    public static let sessionFingerprint = HostCheckFailure("session-hostFingerprint")
}
