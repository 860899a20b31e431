import PushgateHTTP
import Synchronization
import Testing
import PushgateTestSupport

/// ``HTTP1Client`` against the project's HTTP server on loopback.
@Suite(.hangLimit(.minutes(1))) struct HTTP1ClientTests {
    /// A server whose `/echo` answers 201 with the body reversed and the request's content type,
    /// `/big` 1 000 bytes, and `/stall` only once `release` is called.
    final class EchoServer: Sendable {
        /// Requests to `/stall` waiting for ``stop()``.
        private final class Stalled: Sendable {
            let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
        }

        let server: HTTPServer
        private let stalled = Stalled()

        init() throws {
            var router = Router()
            router.post("/echo") { request in
                HTTPResponse(status: 201, headers: ["x-content-type": request.headers["content-type"] ?? "-"],
                             body: request.body.reversed())
            }
            router.post("/big") { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 0x61, count: 1_000)) }
            let stalled = stalled
            router.post("/stall") { _ in
                await withCheckedContinuation { continuation in stalled.waiting.withLock { $0.append(continuation) } }
                return HTTPResponse(status: 200)
            }
            server = try HTTPServer(router: router)
        }

        var base: String { "http://127.0.0.1:\(server.port)" }

        func stop() {
            let waiting = stalled.waiting.withLock { list in
                defer { list.removeAll() }
                return list
            }
            for continuation in waiting { continuation.resume() }
            server.stop()
        }
    }

    private func client(maxConnections: Int = 4, timeoutMs: Int = 10_000, maxReplyBytes: Int = 1 << 20) -> HTTP1Client {
        var configuration = HTTP1Client.Configuration()
        configuration.maxConnections = maxConnections
        configuration.timeoutMs = timeoutMs
        configuration.maxReplyBytes = maxReplyBytes
        return HTTP1Client(configuration: configuration)
    }

    @Test func postsAndReadsStatusHeadersAndBody() async throws {
        let server = try EchoServer()
        let client = client()
        let reply = try await client.post(server.base + "/echo", headers: [("content-type", "application/json")],
                                          body: Array("[1,2]".utf8))
        #expect(reply == HTTPClientReply(status: 201, body: Array("]2,1[".utf8)))
        client.shutdown()
        server.stop()
    }

    @Test func manyConcurrentRequestsRunOnAFewWorkers() async throws {
        let server = try EchoServer()
        let client = client(maxConnections: 3)
        let replies = try await withThrowingTaskGroup(of: (Int, HTTPClientReply).self) { group in
            for index in 0..<40 {
                group.addTask { (index, try await client.post(server.base + "/echo", body: Array("\(index)".utf8))) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(replies.count == 40)
        #expect(replies.allSatisfy { $0.value.body == Array(String($0.key).utf8.reversed()) })
        client.shutdown()
        server.stop()
    }

    @Test func aSilentServerTimesOut() async throws {
        let server = try EchoServer()
        let client = client(timeoutMs: 200)
        await #expect { try await client.post(server.base + "/stall", body: []) } throws: { error in
            (error as? HTTPClientError)?.timedOut == true
        }
        client.shutdown()
        server.stop()
    }

    /// libcurl's timer is re-armed only when it moves earlier: a stalled request must still time
    /// out while later requests, each with a later deadline, come and go on other connections.
    @Test func aStalledRequestTimesOutWhileOthersComeAndGo() async throws {
        let server = try EchoServer()
        let client = client(maxConnections: 2, timeoutMs: 300)
        let stalled = Task { try await client.post(server.base + "/stall", body: []) }
        var answered = 0
        for index in 0..<20 {
            let reply = try await client.post(server.base + "/echo", body: Array("\(index)".utf8))
            if reply.body == Array(String(index).utf8.reversed()) { answered += 1 }
        }
        #expect(answered == 20)
        await #expect { try await stalled.value } throws: { error in (error as? HTTPClientError)?.timedOut == true }
        client.shutdown()
        server.stop()
    }

    @Test func anAnswerOverTheLimitFails() async throws {
        let server = try EchoServer()
        let client = client(maxReplyBytes: 999)
        await #expect { try await client.post(server.base + "/big", body: []) } throws: { error in
            (error as? HTTPClientError)?.description.contains("larger than 999 bytes") == true
        }
        let roomy = self.client(maxReplyBytes: 1_000)
        #expect(try await roomy.post(server.base + "/big", body: []).body.count == 1_000)
        client.shutdown()
        roomy.shutdown()
        server.stop()
    }

    @Test func aClosedPortAndAShutDownClientFailWithoutAnAnswer() async throws {
        let server = try EchoServer()
        let base = server.base
        server.stop()
        let client = client()
        await #expect { try await client.post(base + "/echo", body: []) } throws: { error in
            guard let error = error as? HTTPClientError else { return false }
            return !error.timedOut && error.description.hasPrefix("http://127.0.0.1:")
        }
        client.shutdown()
        await #expect { try await client.post(base + "/echo", body: []) } throws: { error in
            (error as? HTTPClientError)?.description == "the HTTP client was shut down"
        }
    }
}
