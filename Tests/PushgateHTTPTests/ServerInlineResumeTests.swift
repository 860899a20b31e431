import Foundation
import PushgateHTTP
import PushgateTestSupport
import PushgateTesting
import Testing

/// Where a handler continues after an await: on the server's loop thread for a `resumesInline`
/// route — whichever thread resumed it — and on the cooperative pool otherwise.
@Suite(.hangLimit(.minutes(1))) struct ServerInlineResumeTests {
    /// Awaits a continuation that a new thread resumes, or with `byLoop` a job on the server's
    /// loop; answers where the handler went on: `loop`, `resumer` or `elsewhere`.
    ///
    /// A continuation resumed before its task has suspended lets the task go on where it was, so
    /// the resumer first waits for a job queued on the server's loop: the handler starts on the
    /// loop thread, which runs that job only after the handler's task has suspended. The resumer
    /// stays alive until the handler has looked, so its id cannot be reused by a pool thread in between.
    private static func whereItContinues(loop: EpollEventLoop, byLoop: Bool = false) -> HTTPHandler {
        { _ in
            guard loop.isCurrent else { return HTTPResponse(status: 500, body: Array("started off the loop".utf8)) }
            let suspended = DispatchSemaphore(value: 0)
            let looked = DispatchSemaphore(value: 0)
            let resumer = await withCheckedContinuation { (continuation: CheckedContinuation<pthread_t, Never>) in
                if byLoop {
                    loop.execute { continuation.resume(returning: pthread_self()) }
                    looked.signal()
                    return
                }
                loop.execute { suspended.signal() }
                Thread {
                    suspended.wait()
                    continuation.resume(returning: pthread_self())
                    looked.wait()
                }.start()
            }
            let place = loop.isCurrent ? "loop" : pthread_equal(resumer, pthread_self()) != 0 ? "resumer" : "elsewhere"
            looked.signal()
            return HTTPResponse(status: 200, body: Array(place.utf8))
        }
    }

    @Test func anInlineRouteContinuesOnTheLoopWhoeverResumesIt() async throws {
        let loop = try EpollEventLoop()
        var router = Router()
        router.add("GET", "/inline", RouteHandler(resumesInline: true, Self.whereItContinues(loop: loop)))
        router.add("GET", "/inline-by-loop", RouteHandler(resumesInline: true, Self.whereItContinues(loop: loop, byLoop: true)))
        router.get("/pooled", Self.whereItContinues(loop: loop))
        var configuration = HTTPServerConfiguration()
        configuration.eventLoop = loop
        let server = try HTTPServer(configuration: configuration, router: router)
        let port = server.port
        let answers = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            return try ["/inline", "/pooled", "/inline-by-loop", "/inline"].map { path in
                try connection.sendRequest("GET", path)
                return try connection.readResponse().bodyText
            }
        }
        #expect(answers == ["loop", "elsewhere", "loop", "loop"])
        server.stop()
        loop.close()
    }
}
