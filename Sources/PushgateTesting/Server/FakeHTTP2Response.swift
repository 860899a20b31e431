/// The answer a fake server gives one stream.
struct FakeHTTP2Response {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]
}

/// A fake's decision on one request: the answer, and how long to hold it back without
/// holding up other streams (real time, milliseconds).
struct FakeServerReply {
    let response: FakeHTTP2Response
    let delayMilliseconds: Int
}

/// The request logic of one fake server (APNs, FCM). It lives on the server's I/O thread,
/// which calls it for every complete request, so it needs no locking of its own.
protocol FakeServerResponder: AnyObject {
    func respond(to request: FakeHTTP2Request) -> FakeServerReply
    /// Counts and records `request`, which the server resets (RST_STREAM) instead of answering.
    func recordReset(of request: FakeHTTP2Request)
}
