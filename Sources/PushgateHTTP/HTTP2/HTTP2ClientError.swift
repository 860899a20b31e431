internal import CNGHTTP2

/// Why an HTTP/2 request got no response.
public struct HTTP2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public var description: String { name }

        /// The request itself is malformed (bad origin, path or header).
        public static let invalidRequest = Kind(name: "invalid request")
        /// No response before the request's deadline; its stream (if any) was reset.
        public static let timeout = Kind(name: "timeout")
        /// Too many requests were already waiting for a free stream.
        public static let queueFull = Kind(name: "queue full")
        /// No connection could be established (DNS, TCP, TLS trust, ALPN); ``HTTP2ClientError/tls`` says more.
        public static let connectFailed = Kind(name: "connect failed")
        /// The connection broke while the request was in flight; the server may or may not have acted on it.
        public static let connectionLost = Kind(name: "connection lost")
        /// The server refused the stream (GOAWAY or REFUSED_STREAM) twice, so it was not processed.
        public static let refused = Kind(name: "refused")
        /// The server reset the stream.
        public static let streamReset = Kind(name: "stream reset")
        /// The server broke the HTTP/2 protocol.
        public static let protocolError = Kind(name: "protocol error")
        /// The pool is shutting down.
        public static let shutdown = Kind(name: "shut down")
        /// The calling task was cancelled.
        public static let cancelled = Kind(name: "cancelled")
    }

    public let kind: Kind
    public let detail: String
    /// The TLS failure behind a `connectFailed` or `connectionLost`, when there was one.
    public let tls: TLSError?
    /// Whether the request had been written when it failed, so the server may have acted on it
    /// (a timeout, lost connection or reset of a stream in flight). `false` guarantees it did not
    /// reach the server: sending it again cannot deliver it twice.
    public private(set) var mayHaveReachedServer = false

    public init(_ kind: Kind, detail: String, tls: TLSError? = nil) {
        self.kind = kind
        self.detail = detail
        self.tls = tls
    }

    /// This error, for a request that was already written.
    func afterWrite() -> HTTP2ClientError {
        var error = self
        error.mayHaveReachedServer = true
        return error
    }

    public var description: String {
        if let tls { return "HTTP/2 \(kind): \(detail) (\(tls))" }
        return "HTTP/2 \(kind): \(detail)"
    }
}

/// An nghttp2 call failed: the operation and the library's message for its error code.
package struct NGHTTP2Error: Error, CustomStringConvertible {
    package let operation: String
    package let code: Int

    package init(operation: String, code: Int) {
        self.operation = operation
        self.code = code
    }

    package var description: String { "\(operation) failed: \(Self.message(code)) (\(code))" }

    /// nghttp2's text for a library error code.
    package static func message(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }
    package static func message(_ code: Int) -> String { message(Int32(truncatingIfNeeded: code)) }
}

extension HTTP2ClientError {
    /// The client's view of a failed nghttp2 call: a protocol error naming the call.
    init(_ error: NGHTTP2Error) {
        self.init(.protocolError, detail: "\(error.operation): \(NGHTTP2Error.message(error.code))")
    }
}
