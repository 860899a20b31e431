import Foundation
import PushgateHTTP
import Testing

/// Where a handler continues after an await: on the resuming thread for a
/// `resumesInline` route, on the cooperative pool otherwise.
@Suite(.timeLimit(.minutes(1))) struct ServerInlineResumeTests {
    /// Awaits a continuation that a new thread resumes; answers `same` when the handler went on
    /// running on that thread.
    ///
    /// A continuation resumed before its task has suspended lets the task go on where it was, so
    /// the resumer first waits for a job queued on the server's loop: the handler starts on the
    /// loop thread, which runs that job only after the handler's task has suspended. The resumer
    /// stays alive until the handler has looked, so its id cannot be reused by a pool thread in between.
    private static func continuesOnResumer(loop: EpollEventLoop) -> HTTPHandler {
        { _ in
            guard loop.isCurrent else { return HTTPResponse(status: 500, body: Array("started off the loop".utf8)) }
            let suspended = DispatchSemaphore(value: 0)
            let looked = DispatchSemaphore(value: 0)
            let resumer = await withCheckedContinuation { (continuation: CheckedContinuation<pthread_t, Never>) in
                loop.execute { suspended.signal() }
                Thread {
                    suspended.wait()
                    continuation.resume(returning: pthread_self())
                    looked.wait()
                }.start()
            }
            let same = pthread_equal(resumer, pthread_self()) != 0
            looked.signal()
            return HTTPResponse(status: 200, body: Array((same ? "same" : "other").utf8))
        }
    }

    @Test func inlineRouteContinuesOnTheResumingThreadAndOthersDoNot() async throws {
        let loop = try EpollEventLoop()
        var router = Router()
        router.add("GET", "/inline", RouteHandler(resumesInline: true, Self.continuesOnResumer(loop: loop)))
        router.get("/pooled", Self.continuesOnResumer(loop: loop))
        var configuration = HTTPServerConfiguration()
        configuration.eventLoop = loop
        let server = try HTTPServer(configuration: configuration, router: router)
        let port = server.port
        let answers = try await blocking {
            let connection = try TestConnection(port: port)
            return try ["/inline", "/pooled", "/inline"].map { path in
                try connection.request("GET", path)
                return try connection.readResponse().text
            }
        }
        #expect(answers == ["same", "other", "same"])
        server.stop()
        loop.close()
    }
}
