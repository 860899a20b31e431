import Foundation
import PushgateTesting

/// A raw HTTP/1.1 client on one loopback socket, for what URLSession will not do as asked:
/// malformed framing, bytes trickled slowly, a thousand connections held open. Every method
/// blocks (bounded by the socket's receive timeout): call them through ``onOwnThread(_:)``.
final class RawHTTPClient: Sendable {
    /// One response: status, header fields (names lowercased), body.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]

        /// Whether the server closes the connection after this response.
        var closesConnection: Bool { headers["connection"]?.lowercased() == "close" }
        var bodyText: String { String(decoding: body, as: UTF8.self) }

        /// The response at the start of `bytes` and how many bytes it took, or `nil` while incomplete.
        static func parse(_ bytes: ArraySlice<UInt8>) throws -> (response: Response, length: Int)? {
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let headEnd = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
            let lines = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines[0].split(separator: " ")
            guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
                throw Failure.malformedResponse(lines[0])
            }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { throw Failure.malformedResponse(line) }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            guard let length = Int(headers["content-length"] ?? "0") else { throw Failure.malformedResponse("content-length") }
            let bodyStart = headEnd + separator.count
            guard bytes.endIndex - bodyStart >= length else { return nil }
            let response = Response(status: status, headers: headers, body: Array(bytes[bodyStart..<bodyStart + length]))
            return (response, bodyStart + length - bytes.startIndex)
        }
    }

    /// Why an exchange failed.
    enum Failure: Error, CustomStringConvertible {
        case socket(operation: String, errno: Int32)
        case closedBeforeResponse(received: Int)
        case malformedResponse(String)
        case bytesAfterResponse(Int)

        var description: String {
            switch self {
            case .socket(let operation, let code): "\(operation) failed: \(String(cString: strerror(code)))"
            case .closedBeforeResponse(let received): "connection closed or timed out after \(received) bytes, before a whole response"
            case .malformedResponse(let text): "malformed response near \(text.prefix(80).debugDescription)"
            case .bytesAfterResponse(let count): "\(count) unexpected bytes after the response"
            }
        }
    }

    private let fd: Int32

    /// Connects to `127.0.0.1:port` from `source` (any loopback address, so one test can be many
    /// clients); reads give up after `receiveTimeoutSeconds` of silence.
    init(port: UInt16, source: String? = nil, receiveTimeoutSeconds: Int = 10) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket(operation: "socket", errno: errno) }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        do {
            if let source { try Self.call("bind \(source)", fd, ip: source, port: 0, bind) }
            try Self.call("connect", fd, ip: "127.0.0.1", port: port, connect)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Calls `bind` or `connect` on `fd` with the IPv4 address `ip:port`.
    private static func call(_ operation: String, _ fd: Int32, ip: String, port: UInt16,
                             _ function: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(ip)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { function(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure.socket(operation: operation, errno: errno) }
    }

    /// A request with `Host` and, when there is a body, `Content-Length`; `headers` are whole lines.
    static func request(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let body { head += "Content-Length: \(body.count)\r\n" }
        for line in headers { head += line + "\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// Posts only the head of a request declaring a `length`-byte body and reads the answer: how
    /// to see a refusal by Content-Length, which comes before the body is read and is followed
    /// by a close that could cut off a client still sending the body.
    static func postHeadOnly(port: UInt16, path: String, length: Int, from source: String? = nil) throws -> Response {
        let client = try RawHTTPClient(port: port, source: source)
        client.write(Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n".utf8))
        return try client.readResponse()
    }

    /// `GET /metrics` on a relay's metrics listener at `port`: the exposition text.
    static func scrapeMetrics(port: UInt16) throws -> String {
        let client = try RawHTTPClient(port: port)
        client.write(request("GET", "/metrics", headers: ["Connection: close"]))
        let response = try client.readResponse()
        guard response.status == 200 else { throw Failure.malformedResponse("metrics answered \(response.status)") }
        return response.bodyText
    }

    /// Writes all of `bytes`; `false` once the peer no longer accepts them (closed or reset).
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            sent += written
        }
        return true
    }

    /// Closes the sending side: the peer reads end-of-file, the connection stays readable.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads exactly one response (head and `Content-Length` body).
    func readResponse() throws -> Response {
        var received = [UInt8]()
        while true {
            if let (response, length) = try Response.parse(received[...]) {
                guard length == received.count else { throw Failure.bytesAfterResponse(received.count - length) }
                return response
            }
            guard let bytes = receive() else { throw Failure.closedBeforeResponse(received: received.count) }
            received += bytes
        }
    }

    /// Reads until the peer closes (or stays silent past the receive timeout); everything that arrived.
    func readToEnd() -> [UInt8] {
        var received = [UInt8]()
        while let bytes = receive() { received += bytes }
        return received
    }

    /// Waits up to `milliseconds` for the peer to close. `closed` is `true` once it has (end of
    /// file or reset); `received` holds whatever it sent meanwhile.
    func waitForClose(milliseconds: Int) -> (closed: Bool, received: [UInt8]) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var received = [UInt8]()
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (false, received) }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32((left / .milliseconds(1)).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return (false, received) }
            guard let bytes = receive() else { return (true, received) }
            received += bytes
        }
    }

    /// One `recv`: the bytes, or `nil` at end of file, on reset or on timeout.
    private func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(buffer[..<count]) : nil
        }
    }
}
