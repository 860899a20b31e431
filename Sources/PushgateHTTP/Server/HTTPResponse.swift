/// An HTTP response: status, header fields and body bytes.
///
/// `content-length` is computed by the server; `content-length`, `transfer-encoding` and `date`
/// must not be set here.
public struct HTTPResponse: Sendable {
    /// The status code (`200`, `404`, …).
    public var status: Int
    /// Header fields sent with the response (after the server's default headers it does not override).
    public var headers: HTTPHeaders
    /// The body bytes (not sent for `HEAD` requests).
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with `content-type: application/json` and the given JSON bytes.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body)
    }
}
