import PushgateCore

/// An OAuth 2.0 access token from the service-account exchange, and when it stops being usable.
///
/// - Important: protocol/hapi-push.md §8 steps 2–3 — the answer must be JSON with a non-empty string
///   `access_token`; `expires_in` counts when it is a positive finite number, capped at 3600,
///   and is 3600 otherwise.
public struct OAuthAccessToken: Sendable, Equatable, CustomStringConvertible {
    /// The longest lifetime believed, in seconds.
    public static let maxLifetimeSeconds: Double = 3600

    /// The bearer value. Never logged.
    public let value: String
    /// Milliseconds since the epoch when the token expires.
    public let expiresAtMilliseconds: Int64

    public init(value: String, expiresAtMilliseconds: Int64) {
        self.value = value
        self.expiresAtMilliseconds = expiresAtMilliseconds
    }

    /// Reads a token endpoint's JSON answer for an exchange started at `issuedAtMilliseconds`;
    /// `nil` when the answer has no usable `access_token`.
    public init?(response body: [UInt8], issuedAtMilliseconds: Int64) {
        guard let json = try? JSONValue.parse(body), let value = json["access_token"]?.stringValue, !value.isEmpty else {
            return nil
        }
        var lifetime = Self.maxLifetimeSeconds
        if let given = json["expires_in"]?.doubleValue, given.isFinite, given > 0 { lifetime = min(given, lifetime) }
        self.init(value: value, expiresAtMilliseconds: issuedAtMilliseconds + Int64(lifetime * 1000))
    }

    /// The form body that exchanges `assertion` (RFC 7523 jwt-bearer grant). A JWT holds only
    /// base64url characters and dots, none of which need percent-encoding.
    public static func requestBody(assertion: String) -> [UInt8] {
        Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=".utf8) + Array(assertion.utf8)
    }

    /// Never shows the token.
    public var description: String { "OAuthAccessToken(redacted, expires \(expiresAtMilliseconds))" }
}
