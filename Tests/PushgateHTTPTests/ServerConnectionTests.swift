import PushgateHTTP
import Testing
#if canImport(Glibc)
import Glibc
import PushgateTestSupport
import PushgateTesting
#endif

@Suite(.hangLimit(.minutes(1))) struct ServerConnectionTests {
    private static func router() -> Router {
        var router = Router()
        router.get("/ping") { _ in HTTPResponse(status: 200, body: Array("pong".utf8)) }
        router.post("/ping") { _ in HTTPResponse(status: 200, body: Array("pong".utf8)) }
        return router
    }

    @Test(arguments: [
        "GET  HTTP/1.1\r\nhost: x\r\n\r\n",
        "GET /ping\r\n\r\n",
        "GET /ping HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET /ping HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n",
        "POST /ping HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        // Framing another hop could read differently (request smuggling).
        "POST /ping HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab",
        "POST /ping HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /ping HTTP/1.1\r\nhost: x\r\ntransfer-encoding: gzip\r\n\r\n",
    ])
    func malformedRequestsGet400AndTheServerKeepsServing(_ raw: String) async throws {
        let server = try HTTPServer(router: Self.router())
        let port = server.port
        let (bad, good) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.send(raw)
            let bad = try connection.readResponse(ignoringExtraBytes: true)
            let next = try RawHTTPConnection(port: port)
            try next.sendRequest("GET", "/ping")
            return (bad, try next.readResponse())
        }
        #expect(bad.status == 400)
        #expect(good.bodyText == "pong")
    }

    @Test(arguments: [
        ("", "GET /ping HTTP/1.1\r\nhost: x\r\nx-padding: \(String(repeating: "p", count: 100))\r\n\r\n"),
        ("POST /ping HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n", String(repeating: "b", count: 100)),
    ])
    func slowLorisIsDroppedAtTheRequestDeadline(_ sentAtOnce: String, _ trickled: String) async throws {
        // The idle timeout never fires (a byte every 200 ms); the request deadline must.
        let configuration = HTTPServerConfiguration(idleTimeout: .seconds(30), requestTimeout: .seconds(1))
        let server = try HTTPServer(configuration: configuration, router: Self.router())
        let port = server.port
        let (closed, bytesSent) = try await onOwnThread { () -> (Bool, Int) in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(sentAtOnce)
            for (sent, byte) in trickled.utf8.enumerated() {
                if connection.waitReadable(milliseconds: 200) { return (connection.closesSilently(), sent) }
                try? connection.send([byte])
            }
            return (false, trickled.utf8.count)
        }
        #expect(closed)
        #expect(bytesSent >= 4 && bytesSent <= 15, "dropped after about 1 s, not at once and not after the whole request")
    }

    @Test(arguments: ServerMode.allCases)
    func silentConnectionIsDroppedAtTheIdleTimeout(mode: ServerMode) async throws {
        let configuration = mode.applied(to: HTTPServerConfiguration(idleTimeout: .seconds(1), requestTimeout: .seconds(30)))
        let server = try HTTPServer(configuration: configuration, router: Self.router())
        let port = server.port
        let closed = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 5)
            try connection.send("GET /pi")
            return connection.closesSilently()
        }
        #expect(closed)
    }

    @Test func perIPConnectionCapClosesTheExcessConnection() async throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(perIPConnectionLimit: 2), router: Self.router())
        let port = server.port
        let (third, first, second) = try await onOwnThread {
            let kept = try (0..<2).map { _ in
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/ping")
                _ = try connection.readResponse()
                return connection
            }
            let excess = try RawHTTPConnection(port: port)
            let refused = excess.closesSilently()
            try kept[0].sendRequest("GET", "/ping")
            let first = try kept[0].readResponse()
            try kept[1].sendRequest("GET", "/ping")
            return (refused, first, try kept[1].readResponse())
        }
        #expect(third)
        #expect(first.bodyText == "pong")
        #expect(second.bodyText == "pong")
    }

    @Test(arguments: ServerMode.allCases)
    func answersAThousandConcurrentConnections(mode: ServerMode) async throws {
        let count = 1000
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(3 * count) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(4 * count))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let configuration = mode.applied(to: HTTPServerConfiguration(connectionLimit: 4 * count, perIPConnectionLimit: 0))
        let server = try HTTPServer(configuration: configuration, router: Self.router())
        let port = server.port
        let answered = try await onOwnThread { () -> Int in
            let connections = try (0..<count).map { _ in try RawHTTPConnection(port: port) }
            for connection in connections { try connection.sendRequest("GET", "/ping") }
            return try connections.filter { try $0.readResponse().bodyText == "pong" }.count
        }
        #expect(answered == count)
    }
}
