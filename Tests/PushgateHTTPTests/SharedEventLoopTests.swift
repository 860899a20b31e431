import Dispatch
import PushgateHTTP
import PushgateTestSupport
import PushgateTesting
import Testing

/// An HTTP server and an ``HTTP1Client`` on one ``EpollEventLoop``, as the host runs its API and
/// its relay client: a request that waits for the client's answer is handled by the loop thread
/// from arrival to answer.
@Suite(.hangLimit(.minutes(1))) struct SharedEventLoopTests {
    @Test func aRequestWaitingOnTheClientIsFinishedByTheLoopThread() async throws {
        let loop = try EpollEventLoop()
        var upstreamRouter = Router()
        upstreamRouter.post("/upper") { request in
            HTTPResponse(status: 200, body: Array(String(decoding: request.body, as: UTF8.self).uppercased().utf8))
        }
        let upstream = try HTTPServer(router: upstreamRouter)
        let client = HTTP1Client(eventLoop: loop)
        let target = "http://127.0.0.1:\(upstream.port)/upper"
        var router = Router()
        router.add("POST", "/relay", RouteHandler(resumesInline: true) { request in
            let startedOnLoop = loop.isCurrent
            do {
                let reply = try await client.post(target, body: request.body)
                let finishedOnLoop = loop.isCurrent
                return HTTPResponse(status: reply.status, body: reply.body + Array(" \(startedOnLoop) \(finishedOnLoop)".utf8))
            } catch {
                return HTTPResponse(status: 502)
            }
        })
        var configuration = HTTPServerConfiguration()
        configuration.eventLoop = loop
        let server = try HTTPServer(configuration: configuration, router: router)
        let port = server.port
        let answers = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            return try ["a", "b", "c"].map { word in
                try connection.send("POST /relay HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\n\r\n\(word)")
                return try connection.readResponse().bodyText
            }
        }
        #expect(answers == ["A true true", "B true true", "C true true"])
        server.stop()
        client.shutdown()
        loop.close()
        upstream.stop()
    }

    @Test func jobsRunOnTheLoopThreadAndAClosedLoopRunsThemInPlace() async throws {
        let loop = try EpollEventLoop()
        let onLoop = Recorder<Bool>()
        loop.executeAndWait { onLoop.append(loop.isCurrent) }
        loop.close()
        loop.executeAndWait { onLoop.append(loop.isCurrent) }
        #expect(onLoop.items == [true, false])
    }

    @Test func aJobQueuedByAJobRunsWithoutAnotherWakeUp() throws {
        let loop = try EpollEventLoop()
        defer { loop.close() }
        let ran = DispatchSemaphore(value: 0)
        // The inner job is queued on the loop thread, which wakes nobody; before the loop polled
        // for queued jobs it waited for an unrelated event (here: none, so for ever).
        loop.execute { loop.execute { ran.signal() } }
        #expect(ran.wait(timeout: .now() + .seconds(30)) == .success, "the inner job never ran")
    }
}
