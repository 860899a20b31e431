/// A request handed from a caller's task to the event loop, with the continuation to resume.
struct RequestSubmission: Sendable {
    let id: UInt64
    let origin: HTTP2Origin
    let headers: HeaderBlock
    let body: [UInt8]
    /// Absolute deadline in milliseconds of the pool's clock.
    let deadline: Int64
    let continuation: CheckedContinuation<HTTP2Response, any Error>
}
