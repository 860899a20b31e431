import Foundation

/// An HTTP/1.1 client (http and https, keep-alive) on libcurl, for hosts talking to relays.
///
/// Requests share one libcurl multi handle and up to `maxConnections` kept-alive connections
/// (``CurlTransferLoop``): the caller's thread writes a request, one loop thread reads the
/// answers — the client's own, or an ``EpollEventLoop`` shared with an HTTP server — and async
/// callers wait without blocking the cooperative pool.
public final class HTTP1Client: Sendable {
    /// Options of every request this client makes.
    public struct Configuration: Sendable {
        /// Concurrent requests (and kept-alive connections) at most; more wait for a connection.
        public var maxConnections = 16
        /// Deadline of one request, connection included.
        public var timeoutMs = 15_000
        /// Larger answers fail with ``HTTPClientError``.
        public var maxReplyBytes = 1 << 20
        /// An extra trusted CA file (PEM) instead of the system store, e.g. for a local test relay.
        public var caFile: String?

        public init() {}
    }

    public let configuration: Configuration
    private let loop: Result<CurlTransferLoop, HTTPClientError>

    /// `eventLoop`: where answers are read; by default a loop thread of the client's own.
    public init(configuration: Configuration = Configuration(), eventLoop: EpollEventLoop? = nil) {
        self.configuration = configuration
        loop = Result { () throws(HTTPClientError) in try CurlTransferLoop(configuration: configuration, loop: eventLoop) }
    }

    deinit { shutdown() }

    /// POSTs `body` to `url` with `headers` (`name: value` pairs).
    public func post(_ url: String, headers: [(String, String)] = [], body: [UInt8]) async throws -> HTTPClientReply {
        // An empty `Expect:` stops libcurl from waiting for `100 Continue` on larger bodies.
        let lines = headers.map { "\($0.0): \($0.1)" } + ["Expect:"]
        let loop = try loop.get()
        return try await withCheckedThrowingContinuation { continuation in
            loop.submit(url: url, headers: lines, body: body) { continuation.resume(with: $0) }
        }
    }

    /// GETs `url`.
    public func get(_ url: String) async throws -> HTTPClientReply {
        let loop = try loop.get()
        return try await withCheckedThrowingContinuation { continuation in
            loop.submit(url: url, headers: [], body: nil) { continuation.resume(with: $0) }
        }
    }

    /// Refuses new requests, lets submitted ones finish, and returns once every libcurl handle
    /// is released — so a process may exit right after (libcurl and OpenSSL tear down their
    /// global state at exit, which a thread still inside libcurl would race).
    public func shutdown() { try? loop.get().close() }
}
