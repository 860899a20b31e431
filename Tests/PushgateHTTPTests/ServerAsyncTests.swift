import PushgateHTTP
import PushgateTestSupport
import PushgateTesting
import Testing

@Suite(.hangLimit(.minutes(1))) struct ServerAsyncTests {
    private static func server(gate: Gate, mode: ServerMode) throws -> HTTPServer {
        var router = Router()
        router.get("/slow/:name") { request in
            await gate.wait()
            return HTTPResponse(status: 200, body: Array("slow \(request.parameters["name"] ?? "")".utf8))
        }
        router.get("/fast") { _ in HTTPResponse(status: 200, body: Array("fast".utf8)) }
        return try HTTPServer(configuration: mode.applied(), router: router)
    }

    @Test(arguments: ServerMode.allCases)
    func fastRequestIsAnsweredWhileSlowHandlersWait(mode: ServerMode) async throws {
        let gate = Gate()
        let server = try Self.server(gate: gate, mode: mode)
        let port = server.port
        let slow = try await onOwnThread {
            try ["a", "b"].map { try RawHTTPConnection.sending("GET", "/slow/\($0)", port: port) }
        }
        await gate.waitForArrivals(2)
        // Counted before the fast request: a shared loop may report that one complete only just
        // after its answer was read.
        #expect(server.inFlightCount == 2)
        let (fast, slowPending) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("GET", "/fast")
            let fast = try connection.readResponse()
            return (fast, slow.map { $0.waitReadable(milliseconds: 0) })
        }
        #expect(fast.bodyText == "fast")
        #expect(slowPending == [false, false], "slow handlers must not have answered yet")
        await gate.open()
        let answers = try await onOwnThread { try slow.map { try $0.readResponse().bodyText } }
        #expect(answers == ["slow a", "slow b"])
    }

    @Test(arguments: ServerMode.allCases)
    func connectionStaysAliveAcrossAnAsyncAnswer(mode: ServerMode) async throws {
        let gate = Gate()
        let server = try Self.server(gate: gate, mode: mode)
        let port = server.port
        let connection = try await onOwnThread { try RawHTTPConnection.sending("GET", "/slow/x", port: port) }
        await gate.waitForArrivals(1)
        await gate.open()
        let (first, second) = try await onOwnThread {
            let first = try connection.readResponse()
            try connection.sendRequest("GET", "/slow/y")
            return (first, try connection.readResponse())
        }
        #expect(first.bodyText == "slow x")
        #expect(second.bodyText == "slow y")
    }
}
