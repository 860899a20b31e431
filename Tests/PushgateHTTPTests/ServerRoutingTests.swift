import PushgateHTTP
import Testing
#if canImport(Glibc)
import Glibc
import PushgateTestSupport
import PushgateTesting
#endif

@Suite(.hangLimit(.minutes(1))) struct ServerRoutingTests {
    private static let json: HTTPHeaders = ["content-type": "application/json", "cache-control": "no-store"]

    private static func router() -> Router {
        var router = Router()
        router.get("/healthz") { _ in .json(200, Array(#"{"status":"ok"}"#.utf8)) }
        router.get("/api/sessions/:id/view") { request in
            HTTPResponse(status: 200, headers: ["content-type": "text/plain"], body: Array("view \(request.parameters["id"] ?? "-")".utf8))
        }
        router.post("/echo") { request in
            let summary = [
                request.method, request.path, request.route ?? "-", request.peerAddress,
                request.headers["X-Custom"] ?? "-", request.queryValue("a") ?? "-", request.queryValue("flag") ?? "-",
                String(decoding: request.body, as: UTF8.self),
            ]
            return HTTPResponse(status: 201, body: Array(summary.joined(separator: "|").utf8))
        }
        return router
    }

    @Test func routesParametersAndAnswersUnknownPathsWithAnEmpty404AndWrongMethodsWith405() async throws {
        let server = try HTTPServer(router: Self.router())
        #expect(server.port != 0)
        let port = server.port
        let (view, unknown, wrongMethod) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("GET", "/api/sessions/s%201/view")
            let view = try connection.readResponse()
            try connection.sendRequest("GET", "/nope")
            let unknown = try connection.readResponse()
            try connection.sendRequest("DELETE", "/healthz")
            return (view, unknown, try connection.readResponse())
        }
        #expect(view.status == 200)
        #expect(view.bodyText == "view s 1")
        #expect(unknown.status == 404)
        #expect(unknown.body.isEmpty)
        #expect(unknown.headers["content-length"] == "0")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "GET, HEAD")
        #expect(wrongMethod.body.isEmpty)
    }

    @Test func handlerSeesMethodPathHeadersQueryPeerAndBody() async throws {
        let server = try HTTPServer(router: Self.router())
        let port = server.port
        let response = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("POST", "/echo?a=1%202&flag", body: Array("hello".utf8), headers: ["x-custom: yes"])
            return try connection.readResponse()
        }
        #expect(response.status == 201)
        #expect(response.bodyText == "POST|/echo|/echo|127.0.0.1|yes|1 2||hello")
    }

    @Test func headAnswersLikeGetWithoutABodyAndKeepsTheConnection() async throws {
        let server = try HTTPServer(router: Self.router())
        let port = server.port
        let (head, get) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("HEAD", "/healthz")
            let head = try connection.readResponse(headOnly: true)
            // Any body bytes after the HEAD response would corrupt this second response.
            try connection.sendRequest("GET", "/healthz")
            return (head, try connection.readResponse())
        }
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "15")
        #expect(head.body.isEmpty)
        #expect(get.status == 200)
        #expect(get.bodyText == #"{"status":"ok"}"#)
    }

    @Test func defaultHeadersGoOnEveryApplicationResponse() async throws {
        let configuration = HTTPServerConfiguration(
            maxBodyBytes: 8, payloadTooLargeResponse: .json(413, Array(#"{"error":"payload_too_large"}"#.utf8)),
            defaultHeaders: Self.json)
        let server = try HTTPServer(configuration: configuration, router: Self.router())
        let port = server.port
        let responses = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("GET", "/healthz")
            let ok = try connection.readResponse()
            try connection.sendRequest("GET", "/api/sessions/1/view")
            let text = try connection.readResponse()
            try connection.sendRequest("GET", "/missing")
            let missing = try connection.readResponse()
            try connection.sendRequest("POST", "/echo", body: filler(9))
            return [ok, text, missing, try connection.readResponse()]
        }
        #expect(responses.map(\.status) == [200, 200, 404, 413])
        for response in responses {
            #expect(response.headers["cache-control"] == "no-store")
            #expect(response.headers.values(for: "content-type").count == 1)
        }
        #expect(responses[0].headers["content-type"] == "application/json")
        #expect(responses[1].headers["content-type"] == "text/plain", "a response's own header wins over the default")
        #expect(responses[3].bodyText == #"{"error":"payload_too_large"}"#)
    }

    @Test(arguments: ServerMode.allCases)
    func keepAliveServesManyRequestsOnOneConnection(mode: ServerMode) async throws {
        let server = try HTTPServer(configuration: mode.applied(), router: Self.router())
        let port = server.port
        let statuses = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            return try (0..<50).map { _ in
                try connection.sendRequest("GET", "/healthz")
                return try connection.readResponse().status
            }
        }
        #expect(statuses == Array(repeating: 200, count: 50))
    }

    @Test func preBodyHookRejectsBeforeTheBodyIsRead() async throws {
        let handled = Recorder<String>()
        var router = Router()
        router.post("/limited") {
            handled.append(String(decoding: $0.body, as: UTF8.self))
            return HTTPResponse(status: 200)
        }
        let seen = Recorder<String>()
        let server = try HTTPServer(router: router, preBody: { request in
            seen.append("\(request.route ?? "-") \(request.peerAddress) \(request.body.count)")
            return request.headers["x-over-limit"] == nil ? nil : .json(429, Array(#"{"error":"rate_limited"}"#.utf8))
        })
        let port = server.port
        let (limited, closed, allowed) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            // The declared body is never sent: the answer must come without it.
            try connection.send("POST /limited HTTP/1.1\r\nhost: x\r\nx-over-limit: 1\r\ncontent-length: 100\r\n\r\n")
            let limited = try connection.readResponse()
            let closed = connection.closesSilently()
            let second = try RawHTTPConnection(port: port)
            try second.sendRequest("POST", "/limited", body: Array("ok".utf8))
            return (limited, closed, try second.readResponse())
        }
        #expect(limited.status == 429)
        #expect(limited.bodyText == #"{"error":"rate_limited"}"#)
        #expect(closed, "an unread body means the connection cannot be reused")
        #expect(allowed.status == 200)
        #expect(handled.items == ["ok"])
        #expect(seen.items == ["/limited 127.0.0.1 0", "/limited 127.0.0.1 0"])
    }

    @Test func responseObserverSeesRouteAndStatus() async throws {
        let observed = Recorder<String>()
        let server = try HTTPServer(router: Self.router(), onResponse: { route, status in
            observed.append("\(route ?? "none") \(status)")
        })
        let port = server.port
        try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("GET", "/api/sessions/9/view")
            _ = try connection.readResponse()
            try connection.sendRequest("GET", "/unknown")
            _ = try connection.readResponse()
        }
        #expect(observed.items == ["/api/sessions/:id/view 200", "none 404"])
    }

    @Test func bindsIPv6Literals() async throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(host: "::1"), router: Self.router())
        let port = server.port
        let response = try await onOwnThread {
            let connection = try RawHTTPConnection(host: "::1", port: port)
            try connection.sendRequest("POST", "/echo", body: [])
            return try connection.readResponse()
        }
        #expect(response.bodyText == "POST|/echo|/echo|::1|-|-|-|")
    }

    @Test func refusesHostNamesBadSettingsAndBusyPorts() throws {
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: HTTPServerConfiguration(host: "localhost"), router: Router()) }
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: HTTPServerConfiguration(connectionLimit: 0), router: Router()) }
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: HTTPServerConfiguration(idleTimeout: .zero), router: Router()) }
        let first = try HTTPServer(router: Router())
        do {
            _ = try HTTPServer(configuration: HTTPServerConfiguration(port: first.port), router: Router())
            Issue.record("a second server on a busy port must not start")
        } catch let error as HTTPServerError {
            #expect(error.errno == EADDRINUSE)
        }
    }
}
