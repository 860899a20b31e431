import Foundation
import PushgateHTTP
import Testing

/// Where a handler continues after an await: on the resuming thread for a
/// `resumesInline` route, on the cooperative pool otherwise.
@Suite(.timeLimit(.minutes(1))) struct ServerInlineResumeTests {
    /// Awaits a continuation that a new thread resumes; answers `same` when the handler went on
    /// running on that thread. The thread stays alive until the handler has looked, so its id
    /// cannot be reused by a pool thread in between.
    private static func continuesOnResumer(_ request: HTTPRequest) async -> HTTPResponse {
        let looked = DispatchSemaphore(value: 0)
        let resumer = await withCheckedContinuation { (continuation: CheckedContinuation<pthread_t, Never>) in
            Thread {
                continuation.resume(returning: pthread_self())
                looked.wait()
            }.start()
        }
        let same = pthread_equal(resumer, pthread_self()) != 0
        looked.signal()
        return HTTPResponse(status: 200, body: Array((same ? "same" : "other").utf8))
    }

    @Test func inlineRouteContinuesOnTheResumingThreadAndOthersDoNot() async throws {
        var router = Router()
        router.add("GET", "/inline", RouteHandler(resumesInline: true, Self.continuesOnResumer))
        router.get("/pooled", Self.continuesOnResumer)
        let server = try HTTPServer(router: router)
        let port = server.port
        let answers = try await blocking {
            let connection = try TestConnection(port: port)
            return try ["/inline", "/pooled", "/inline"].map { path in
                try connection.request("GET", path)
                return try connection.readResponse().text
            }
        }
        #expect(answers == ["same", "other", "same"])
    }
}
