/// A request on the event loop: waiting for a stream, in flight, or finished. Loop thread only.
final class PendingRequest {
    enum Phase {
        case waiting
        case inFlight(HTTP2Connection, streamID: Int32)
        case finished
    }

    let id: UInt64
    let origin: HTTP2Origin
    let headers: HeaderBlock
    let body: [UInt8]
    let deadline: Int64
    private let continuation: CheckedContinuation<HTTP2Response, any Error>

    var phase: Phase = .waiting
    /// Already re-sent once after the server refused it (GOAWAY / REFUSED_STREAM).
    var retried = false
    /// How much of `body` nghttp2 has taken.
    var bodyOffset = 0
    /// The HEADERS frame went out, so the server may have seen the request.
    var headersSent = false

    var status: Int?
    var responseHeaders: [HTTP2Header] = []
    var responseBody: [UInt8] = []
    var responseTruncated = false

    init(_ submission: RequestSubmission) {
        id = submission.id
        origin = submission.origin
        headers = submission.headers
        body = submission.body
        deadline = submission.deadline
        continuation = submission.continuation
    }

    var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    /// Resumes the caller exactly once; later calls do nothing.
    func finish(_ result: Result<HTTP2Response, HTTP2ClientError>) {
        guard !isFinished else { return }
        phase = .finished
        continuation.resume(with: result)
    }

    /// Forgets a partial response before the request is sent again. A request the server refused
    /// uses up its one retry; one that never left this process (its connection broke first) does not.
    func prepareToResend(countsAsRetry: Bool) {
        phase = .waiting
        if countsAsRetry { retried = true }
        bodyOffset = 0
        headersSent = false
        status = nil
        responseHeaders.removeAll()
        responseBody.removeAll()
        responseTruncated = false
    }
}
