import Foundation
import PushgateHTTP
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
import PushgateTestSupport
import PushgateTesting
#endif

/// A socket call that failed in a test client.
struct SocketError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// A parsed HTTP/1.1 response.
struct TestResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP/1.1 client on a raw loopback socket, for exact bytes, keep-alive, slow and
/// malformed input. Call it only inside ``onOwnThread(_:)`` so no cooperative thread waits on it.
final class TestConnection: @unchecked Sendable {
    // @unchecked Sendable: each test drives a connection from one `onOwnThread` call at a time.
    let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port`; every read gives up after `timeout` seconds.
    init(host: String = "127.0.0.1", port: UInt16, timeout: Int = 10) throws {
        // Assigned last: once `socket` is set, a throw would run deinit and close it twice.
        socket = try Self.connected(host: host, port: port, timeout: timeout)
    }

    private static func connected(host: String, port: UInt16, timeout: Int) throws -> Int32 {
        let v6 = host.contains(":")
        let socket = Glibc.socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let code = errno
            close(socket)
            throw SocketError(operation: "connect", code: code)
        }
        return socket
    }

    deinit { close(socket) }

    /// Connects and sends a request without waiting for its answer (for handlers that hold it).
    static func sending(_ method: String, _ target: String, port: UInt16) throws -> TestConnection {
        let connection = try TestConnection(port: port)
        try connection.request(method, target)
        return connection
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw SocketError(operation: "send", code: errno) }
            sent += n
        }
    }

    /// Sends a request with `content-length` when a body is given.
    func request(_ method: String, _ target: String, headers: [String] = [], body: [UInt8]? = nil) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nhost: localhost\r\n"
        for line in headers { head += line + "\r\n" }
        if let body { head += "content-length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + (body ?? []))
    }

    /// Reads one response; a response to `HEAD` has no body whatever its `content-length`.
    func readResponse(toHead: Bool = false) throws -> TestResponse {
        var end = try fill { $0.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw SocketError(operation: "parse status", code: EPROTO) }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = toHead ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        let headEnd = end
        end = try fill { $0.count >= headEnd + length ? headEnd + length : nil }
        let body = Array(buffer[headEnd..<end])
        buffer.removeFirst(end)
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// Waits until the server closes the connection (end of stream or reset); `false` if the
    /// read timeout passed first or data arrived instead.
    func waitForClose() -> Bool {
        var byte: UInt8 = 0
        let n = recv(socket, &byte, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    /// Whether response bytes are waiting, without blocking.
    func hasPendingData() -> Bool {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return !buffer.isEmpty || poll(&poller, 1, 0) > 0
    }

    /// Waits up to `milliseconds` for the connection to become readable (data or close).
    func waitReadable(milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    private func fill(until done: ([UInt8]) -> Int?) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let end = done(buffer) { return end }
            let n = recv(socket, &chunk, chunk.count, 0)
            guard n > 0 else { throw SocketError(operation: "recv", code: n == 0 ? ECONNRESET : errno) }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}

/// A latch handlers wait on until the test opens it; it also counts the handlers waiting.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []
    private(set) var waiting = 0

    /// Suspends until ``open()``.
    func wait() async {
        waiting += 1
        arrivals.forEach { $0.resume() }
        arrivals.removeAll()
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Returns once `count` callers have reached ``wait()``.
    func waitForArrivals(_ count: Int) async {
        while waiting < count { await withCheckedContinuation { arrivals.append($0) } }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }
}

/// Bytes of `count` copies of `byte`.
func filler(_ count: Int, _ byte: UInt8 = UInt8(ascii: "x")) -> [UInt8] { [UInt8](repeating: byte, count: count) }

/// A chunked request body: `body` in chunks of `chunkSize`, then the last chunk.
func chunked(_ body: [UInt8], chunkSize: Int) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    while start < body.count {
        let end = min(start + chunkSize, body.count)
        out += Array((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + Array("\r\n".utf8)
        start = end
    }
    return out + Array("0\r\n\r\n".utf8)
}

/// A thread-safe list that handlers and hooks append to and tests read.
final class Recorder<Item: Sendable>: Sendable {
    private let storage = Mutex<[Item]>([])
    func append(_ item: Item) { storage.withLock { $0.append(item) } }
    var items: [Item] { storage.withLock { $0 } }
}

/// How a test server runs: on an ``EpollEventLoop`` of its own (as the relay runs), or on one
/// shared with other servers and clients (as the host runs its API).
enum ServerMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case ownLoop
    case sharedLoop

    /// One loop for every shared-loop server of the test process.
    private static let loop = try! EpollEventLoop()

    /// `configuration` in this mode.
    func applied(to configuration: HTTPServerConfiguration = HTTPServerConfiguration()) -> HTTPServerConfiguration {
        var configuration = configuration
        if self == .sharedLoop { configuration.eventLoop = Self.loop }
        return configuration
    }

    var testDescription: String { rawValue }
}
