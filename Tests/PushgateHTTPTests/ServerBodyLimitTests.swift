import PushgateHTTP
import PushgateTestSupport
import PushgateTesting
import Testing

/// - Important: protocol/signed-relay.md §10 item 12 — 16 KiB + 1 → 413 by Content-Length or chunked.
@Suite(.hangLimit(.minutes(1))) struct ServerBodyLimitTests {
    private static let cap = 16 * 1024
    private static let tooLarge = HTTPResponse.json(413, Array(#"{"error":"payload_too_large"}"#.utf8))

    private static func server(handled: Recorder<Int>? = nil) throws -> HTTPServer {
        var router = Router()
        router.post("/echo") { request in
            handled?.append(request.body.count)
            return HTTPResponse(status: 200, body: Array("\(request.body.count) \(request.body.allSatisfy { $0 == UInt8(ascii: "x") })".utf8))
        }
        let configuration = HTTPServerConfiguration(maxBodyBytes: cap, payloadTooLargeResponse: tooLarge)
        return try HTTPServer(configuration: configuration, router: router)
    }

    @Test func contentLengthOverTheCapIsAnswered413WithoutReadingTheBody() async throws {
        let handled = Recorder<Int>()
        let server = try Self.server(handled: handled)
        let port = server.port
        let (response, closed) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: \(Self.cap + 1)\r\n\r\n")
            return (try connection.readResponse(), connection.closesSilently())
        }
        #expect(response.status == 413)
        #expect(response.bodyText == #"{"error":"payload_too_large"}"#)
        #expect(closed)
        #expect(handled.items.isEmpty)
    }

    @Test func chunkedBodyOverTheCapIsAnswered413() async throws {
        let handled = Recorder<Int>()
        let server = try Self.server(handled: handled)
        let port = server.port
        let response = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
            try connection.send(chunked(filler(Self.cap + 1), chunkSize: 4000))
            return try connection.readResponse()
        }
        #expect(response.status == 413)
        #expect(response.bodyText == #"{"error":"payload_too_large"}"#)
        #expect(handled.items.isEmpty)
    }

    @Test func bodiesOfExactlyTheCapAreAcceptedEitherWay() async throws {
        let server = try Self.server()
        let port = server.port
        let (declared, streamed) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("POST", "/echo", body: filler(Self.cap))
            let declared = try connection.readResponse()
            try connection.send("POST /echo HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
            try connection.send(chunked(filler(Self.cap), chunkSize: 1000))
            return (declared, try connection.readResponse())
        }
        #expect(declared.status == 200)
        #expect(declared.bodyText == "16384 true")
        #expect(streamed.status == 200)
        #expect(streamed.bodyText == "16384 true")
    }

    @Test func endlessChunkedBodyIsCutOffNotRead() async throws {
        let server = try Self.server()
        let port = server.port
        let sentBeforeCut = try await onOwnThread { () -> Int in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
            let chunk = chunked(filler(8 * 1024), chunkSize: 8 * 1024).dropLast(5)  // no last-chunk
            var sent = 0
            while sent < 64 * 1024 * 1024 {
                do { try connection.send(Array(chunk)) } catch { return sent }
                sent += chunk.count
            }
            return sent
        }
        #expect(sentBeforeCut < 64 * 1024 * 1024, "the server must stop reading an endless body")
    }

    /// One route may take a larger body than the rest, with its own 413 answer, by length or chunked.
    @Test func aRouteBodyLimitOverridesTheDefaultForThatRouteOnly() async throws {
        var router = Router()
        router.post("/echo") { HTTPResponse(status: 200, body: Array("\($0.body.count)".utf8)) }
        router.post("/big") { HTTPResponse(status: 200, body: Array("\($0.body.count)".utf8)) }
        var configuration = HTTPServerConfiguration(maxBodyBytes: Self.cap, payloadTooLargeResponse: Self.tooLarge)
        configuration.routeBodyLimits["/big"] = HTTPBodyLimit(
            maxBytes: 64 * 1024, tooLargeResponse: .json(413, Array(#"{"ok":false,"code":"too_large"}"#.utf8)))
        let server = try HTTPServer(configuration: configuration, router: router)
        let port = server.port
        let (big, small, declared, streamed) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("POST", "/big", body: filler(64 * 1024))
            let big = try connection.readResponse()
            try connection.sendRequest("POST", "/echo", body: filler(Self.cap + 1))
            let small = try connection.readResponse()
            let second = try RawHTTPConnection(port: port)
            try second.send("POST /big HTTP/1.1\r\nhost: x\r\ncontent-length: \(64 * 1024 + 1)\r\n\r\n")
            let declared = try second.readResponse()
            let third = try RawHTTPConnection(port: port)
            try third.send("POST /big HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
            try third.send(chunked(filler(64 * 1024 + 1), chunkSize: 4000))
            return (big, small, declared, try third.readResponse())
        }
        #expect(big.status == 200)
        #expect(big.bodyText == "65536")
        #expect(small.status == 413)
        #expect(small.bodyText == #"{"error":"payload_too_large"}"#)
        #expect(declared.status == 413)
        #expect(declared.bodyText == #"{"ok":false,"code":"too_large"}"#)
        #expect(streamed.status == 413)
        #expect(streamed.bodyText == #"{"ok":false,"code":"too_large"}"#)
    }
}
