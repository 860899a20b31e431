/// A TLS or socket failure: what kind, which operation, and the library's own message.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure; callers branch on it (for example to tell a trust problem from a dropped link).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public var description: String { name }

        /// A context could not be built (bad PEM, unreadable CA file, bad ALPN list).
        public static let configuration = Kind(name: "configuration")
        /// The TCP connection could not be established.
        public static let connectFailed = Kind(name: "connect failed")
        /// The peer's certificate chain does not lead to a trusted CA (or is expired, malformed…).
        public static let certificateNotTrusted = Kind(name: "certificate not trusted")
        /// The certificate is trusted but names another host or IP address.
        public static let hostnameMismatch = Kind(name: "hostname mismatch")
        /// The peer did not agree to any offered application protocol (ALPN).
        public static let alpnRefused = Kind(name: "ALPN refused")
        /// Any other handshake failure.
        public static let handshakeFailed = Kind(name: "handshake failed")
        /// Reading or writing an established connection failed.
        public static let io = Kind(name: "I/O failed")
    }

    public let kind: Kind
    /// The operation that failed, such as `SSL_connect` or `connect`.
    public let operation: String
    /// The library's message (OpenSSL error queue, certificate verification result or errno text).
    public let detail: String

    public init(_ kind: Kind, operation: String, detail: String) {
        self.kind = kind
        self.operation = operation
        self.detail = detail
    }

    public var description: String { "TLS \(kind): \(operation): \(detail)" }
}
