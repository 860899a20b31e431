import PushgateCommandLine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking HTTP/1.1 keep-alive connection to a plain-HTTP server at an IPv4 address, for
/// load generators that run one connection per thread. Not thread-safe.
final class BenchHTTPConnection {
    /// A reply: status and body (read by `Content-Length`).
    struct Reply: Sendable {
        let status: Int
        let body: [UInt8]
    }

    private let descriptor: Int32
    private let hostHeader: String
    /// Extra header lines sent with every request (each ending in CRLF).
    private let extraHeaders: String
    /// Bytes received and not yet consumed.
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects to `http://host:port`, `host` an IPv4 literal; `bearer` is sent as
    /// `Authorization: Bearer …` with every request. With `receiveTimeoutSeconds`, a reply that
    /// stops coming for that long fails the request instead of blocking for ever.
    init(host: String, port: UInt16, bearer: String? = nil, receiveTimeoutSeconds: Int? = nil) throws {
        extraHeaders = bearer.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw ToolFailure("\(host) is not an IPv4 address") }
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ToolFailure("socket: \(String(cString: strerror(errno)))") }
        hostHeader = "\(host):\(port)"
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let receiveTimeoutSeconds {
            var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ToolFailure("connect to \(hostHeader): \(reason)")
        }
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:8788` → ("127.0.0.1", 8788).
    static func address(of url: String) throws(UsageError) -> (host: String, port: UInt16) {
        var rest = Substring(url)
        guard rest.hasPrefix("http://") else { throw UsageError("the relay URL must look like http://127.0.0.1:PORT") }
        rest = rest.dropFirst("http://".count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let parts = rest.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]), port > 0 else {
            throw UsageError("the relay URL must look like http://127.0.0.1:PORT")
        }
        return (String(parts[0]), port)
    }

    /// Posts a JSON `body` to `path` and waits for the whole reply; `headerLines` are sent
    /// with this request only (each ending in CRLF).
    func post(_ path: String, body: [UInt8], headerLines: String = "") throws -> Reply {
        try request("POST", path, body: body, headerLines: headerLines)
    }

    /// Sends `method` with a JSON `body` (empty for none) to `path` and waits for the whole reply.
    func request(_ method: String, _ path: String, body: [UInt8] = [], headerLines: String = "") throws -> Reply {
        let head = "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\(extraHeaders)\(headerLines)\r\n"
        try send(Array(head.utf8) + body)
        return try readReply()
    }

    private func send(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if errno != EINTR {
                throw ToolFailure("write to \(hostHeader): \(String(cString: strerror(errno)))")
            }
        }
    }

    private func readReply() throws -> Reply {
        let headEnd: Int
        while true {
            if let end = try headerEnd() {
                headEnd = end
                break
            }
            try receive()
        }
        let head = String(decoding: pending[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
            throw ToolFailure("\(hostHeader) sent a malformed status line")
        }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].filter { $0 != " " && $0 != "\t" })
        }.first
        guard let length else { throw ToolFailure("\(hostHeader) sent a reply without Content-Length") }
        let bodyStart = headEnd + 4
        while pending.count < bodyStart + length { try receive() }
        let body = Array(pending[bodyStart..<(bodyStart + length)])
        pending.removeFirst(bodyStart + length)
        return Reply(status: status, body: body)
    }

    /// The index of the `\r\n\r\n` ending the header block, if it has arrived.
    private func headerEnd() throws -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        guard pending.count < 64 * 1024 else { throw ToolFailure("\(hostHeader) sent over 64 KiB of headers") }
        return nil
    }

    private func receive() throws {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            pending += chunk[..<count]
        } else if count == 0 {
            throw ToolFailure("\(hostHeader) closed the connection")
        } else if errno != EINTR {
            throw ToolFailure("read from \(hostHeader): \(String(cString: strerror(errno)))")
        }
    }
}
