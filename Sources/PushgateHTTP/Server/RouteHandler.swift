/// A route's handler and where its task continues after it awaits.
///
/// By default a handler's task continues on the cooperative pool. A route that
/// ``resumesInline`` continues on whichever thread resumes it: after a group commit, the store
/// thread finishes the handler and resumes the connection itself, saving a thread wake-up per
/// request. Only for handlers whose remaining work after an await is short and never blocks,
/// since that thread (a store or network thread) waits for it.
public struct RouteHandler: Sendable {
    public let run: HTTPHandler
    public let resumesInline: Bool

    public init(resumesInline: Bool = false, _ run: @escaping HTTPHandler) {
        self.run = run
        self.resumesInline = resumesInline
    }

    public func callAsFunction(_ request: HTTPRequest) async -> HTTPResponse { await run(request) }
}
