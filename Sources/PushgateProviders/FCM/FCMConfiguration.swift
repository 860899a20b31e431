import PushgateCore
import PushgateHTTP

/// The service account, endpoints and timing of an ``FCMClient``.
///
/// - Important: protocol/hapi-push.md §8 — a relay gives OAuth and send calls its provider deadline
///   (default 5 s), a host 10 s.
public struct FCMConfiguration: Sendable {
    /// Google's FCM HTTP v1 service.
    public static let googleOrigin = HTTP2Origin(host: "fcm.googleapis.com")

    /// The account whose key signs the OAuth assertion and whose `project_id` messages go to.
    public var account: ServiceAccount
    /// Where `POST /v1/projects/<project_id>/messages:send` goes (a fake FCM in tests).
    public var origin: HTTP2Origin
    /// Where the assertion is exchanged for an access token: the account's `token_uri` unless
    /// overridden. The assertion's `aud` stays the account's `token_uri` either way.
    public var tokenURI: String
    /// Deadline of each OAuth exchange and each send, in milliseconds.
    public var timeoutMilliseconds: Int64
    /// Connection limits; `extraCAFile` adds a trusted CA (for a local fake FCM).
    public var http2: HTTP2ClientConfiguration

    public init(account: ServiceAccount, origin: HTTP2Origin = FCMConfiguration.googleOrigin, tokenURI: String? = nil,
                extraCAFile: String? = nil, timeoutMilliseconds: Int64 = 5_000) {
        self.account = account
        self.origin = origin
        self.tokenURI = tokenURI ?? account.tokenURI
        self.timeoutMilliseconds = timeoutMilliseconds
        var http2 = HTTP2ClientConfiguration(extraCAFile: extraCAFile)
        http2.requestTimeoutMilliseconds = timeoutMilliseconds
        http2.maxResponseBodyBytes = 16 * 1024
        self.http2 = http2
    }
}
