/// A route's handler and where its task continues after it awaits.
///
/// By default a handler's task continues on the cooperative pool. A route that
/// ``resumesInline`` continues on the server's loop thread: at once when the loop itself resumes
/// it (the host's libcurl answer), else handed to the loop (after a group commit, the store
/// queue posts it there). It saves the cooperative pool's wake-up and answers from the thread
/// that writes the answer. Only for handlers whose remaining work after an await is short and
/// never blocks, since the loop serves every connection meanwhile.
public struct RouteHandler: Sendable {
    public let run: HTTPHandler
    public let resumesInline: Bool

    public init(resumesInline: Bool = false, _ run: @escaping HTTPHandler) {
        self.run = run
        self.resumesInline = resumesInline
    }

    public func callAsFunction(_ request: HTTPRequest) async -> HTTPResponse { await run(request) }
}
