import Glibc
import PushgateCore
import PushgateHTTP

/// A blocking HTTP/1.1 client on one raw loopback socket, for what a real client will not do as
/// asked: exact bytes, malformed framing, bytes trickled slowly, keep-alive, a thousand
/// connections held open. Every call blocks (reads for at most the receive timeout): make them
/// inside ``onOwnThread(_:)`` so no cooperative thread waits on one. Socket failures, a peer that
/// closes before a whole response and a response that does not parse throw ``SystemError``.
public final class RawHTTPConnection: Sendable {
    /// One response: status, header fields, body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: [UInt8]

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        /// Whether the server closes the connection after this response.
        public var closesConnection: Bool { headers["connection"]?.lowercased() == "close" }

        /// The response at the start of `bytes` and how many bytes it took, or `nil` while
        /// incomplete. With `headOnly` (the answer to `HEAD`) it has no body whatever its
        /// `Content-Length`. A body without `Content-Length` runs until the peer closes: with
        /// `complete`, `bytes` are all it sent before it did.
        public static func parse(_ bytes: ArraySlice<UInt8>, headOnly: Bool = false,
                                 complete: Bool = false) throws(SystemError) -> (response: Response, length: Int)? {
            let separator = Array("\r\n\r\n".utf8)
            guard let headEnd = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
            let lines = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines[0].split(separator: " ")
            guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
                throw malformed(lines[0])
            }
            var headers = HTTPHeaders()
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { throw malformed(line) }
                headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let bodyStart = headEnd + separator.count
            let length: Int
            if headOnly || (100..<200).contains(status) || status == 204 || status == 304 {
                length = 0
            } else if let declared = headers["content-length"] {
                guard let declared = Int(declared) else { throw malformed("content-length") }
                length = declared
            } else {
                guard complete else { return nil }
                length = bytes.endIndex - bodyStart
            }
            guard bytes.endIndex - bodyStart >= length else { return nil }
            let response = Response(status: status, headers: headers, body: Array(bytes[bodyStart..<bodyStart + length]))
            return (response, bodyStart + length - bytes.startIndex)
        }

        private static func malformed(_ text: String) -> SystemError {
            SystemError(operation: "parse the response near \(text.prefix(80).debugDescription)", errno: EPROTO)
        }
    }

    private let fd: Int32
    private let receiveTimeoutSeconds: Int

    /// Connects to `host:port` (IP literals), from `source` when given (any loopback address, so
    /// one test can be many clients); every read gives up after `receiveTimeoutSeconds` of silence.
    public init(host: String = "127.0.0.1", port: UInt16, source: String? = nil, receiveTimeoutSeconds: Int = 10) throws(SystemError) {
        guard let address = SocketAddress(ipLiteral: host, port: port) else {
            throw SystemError(operation: "connect to \(host), not an IP address", errno: EINVAL)
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        do throws(SystemError) {
            if let source {
                guard let local = SocketAddress(ipLiteral: source, port: 0) else {
                    throw SystemError(operation: "bind \(source), not an IP address", errno: EINVAL)
                }
                guard local.withSockAddr({ bind(fd, $0, $1) }) == 0 else { throw SystemError.last("bind \(source)") }
            }
            guard address.withSockAddr({ connect(fd, $0, $1) }) == 0 else { throw SystemError.last("connect") }
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
        self.receiveTimeoutSeconds = receiveTimeoutSeconds
    }

    deinit { close(fd) }

    /// A request with `Host` and, when there is a body, `Content-Length`; `headers` are whole lines.
    public static func request(_ method: String, _ target: String, body: [UInt8]? = nil, headers: [String] = []) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let body { head += "Content-Length: \(body.count)\r\n" }
        for line in headers { head += line + "\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// Connects to `127.0.0.1:port` and sends a request without waiting for its answer (for
    /// handlers that hold it).
    public static func sending(_ method: String, _ target: String, port: UInt16) throws(SystemError) -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: port)
        try connection.sendRequest(method, target)
        return connection
    }

    /// Posts only the head of a request declaring a `length`-byte body and reads the answer: how
    /// to see a refusal by Content-Length, which comes before the body is read and is followed
    /// by a close that could cut off a client still sending the body.
    public static func postHeadOnly(port: UInt16, path: String, length: Int, from source: String? = nil) throws(SystemError) -> Response {
        let connection = try RawHTTPConnection(port: port, source: source)
        connection.sendUnlessClosed(Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n".utf8))
        return try connection.readResponse()
    }

    /// `GET /metrics` on a relay's metrics listener at `port`: the exposition text.
    public static func scrapeMetrics(port: UInt16) throws(SystemError) -> String {
        let connection = try RawHTTPConnection(port: port)
        connection.sendUnlessClosed(request("GET", "/metrics", headers: ["Connection: close"]))
        let response = try connection.readResponse()
        guard response.status == 200 else { throw SystemError(operation: "GET /metrics answered \(response.status)", errno: EPROTO) }
        return response.bodyText
    }

    /// Sends all of `bytes`, or throws why not (`EPIPE` or `ECONNRESET` once the peer closed).
    public func send(_ bytes: [UInt8]) throws(SystemError) {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw SystemError.last("send") }
            sent += written
        }
    }

    public func send(_ text: String) throws(SystemError) { try send(Array(text.utf8)) }

    /// Sends all of `bytes`; `false` once the peer no longer takes them (closed or reset). For
    /// exchanges where the server may answer and close before the whole request went out: the
    /// answer is still there to read.
    @discardableResult
    public func sendUnlessClosed(_ bytes: [UInt8]) -> Bool { (try? send(bytes)) != nil }

    /// Sends ``request(_:_:body:headers:)``.
    public func sendRequest(_ method: String, _ target: String, body: [UInt8]? = nil, headers: [String] = []) throws(SystemError) {
        try send(Self.request(method, target, body: body, headers: headers))
    }

    /// Closes the sending side: the peer reads end-of-file, the connection stays readable.
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads exactly one response: head and body (by `Content-Length`, else up to the close), or
    /// only the head with `headOnly` (the answer to `HEAD`). Bytes that came with it beyond its
    /// end are an error, or dropped with `ignoringExtraBytes` (for libmicrohttpd's own 400 to a
    /// malformed `Content-Length`, which repeats its head inside its body).
    public func readResponse(headOnly: Bool = false, ignoringExtraBytes: Bool = false) throws(SystemError) -> Response {
        var received: [UInt8] = []
        while true {
            if let (response, length) = try Response.parse(received[...], headOnly: headOnly) {
                guard length == received.count || ignoringExtraBytes else {
                    let rest = String(decoding: received[length...].prefix(80), as: UTF8.self)
                    throw SystemError(operation: "read \(received.count - length) unexpected bytes after the response: \(rest.debugDescription)", errno: EPROTO)
                }
                return response
            }
            let bytes: [UInt8]
            do { bytes = try receive() } catch {
                throw SystemError(operation: "recv after \(received.count) bytes, before a whole response", errno: error.errno)
            }
            guard !bytes.isEmpty else {
                if let (response, _) = try Response.parse(received[...], headOnly: headOnly, complete: true) { return response }
                throw SystemError(operation: "closed by the peer after \(received.count) bytes, before a whole response", errno: ECONNRESET)
            }
            received += bytes
        }
    }

    /// Reads until the peer closes (or stays silent past the receive timeout); everything that arrived.
    public func readToEnd() -> [UInt8] {
        var received: [UInt8] = []
        while let bytes = try? receive(), !bytes.isEmpty { received += bytes }
        return received
    }

    /// Waits up to `milliseconds` for the peer to close. `closed` is `true` once it has (end of
    /// file or reset); `received` holds whatever it sent meanwhile.
    public func waitForClose(milliseconds: Int) -> (closed: Bool, received: [UInt8]) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var received: [UInt8] = []
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (false, received) }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32((left / .milliseconds(1)).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return (false, received) }
            guard let bytes = try? receive(), !bytes.isEmpty else { return (true, received) }
            received += bytes
        }
    }

    /// Whether the peer closes within the receive timeout without sending anything first.
    public func closesSilently() -> Bool {
        waitForClose(milliseconds: receiveTimeoutSeconds * 1000) == (true, [])
    }

    /// Whether the connection becomes readable (data or close) within `milliseconds`; 0 asks
    /// without waiting.
    public func waitReadable(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// One `recv`: the bytes, empty at end of file; throws on reset or on the receive timeout.
    private func receive() throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw SystemError.last("recv") }
            return Array(buffer[..<count])
        }
    }
}
