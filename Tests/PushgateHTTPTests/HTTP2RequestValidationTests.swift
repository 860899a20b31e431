internal import CNGHTTP2
import PushgateCore
@testable import PushgateHTTP
import Testing
import PushgateTestSupport

@Suite("HTTP/2 origins and request validation", .hangLimit(.minutes(1)))
struct HTTP2RequestValidationTests {
    @Test("origins parse from https URLs", arguments: [
        ("https://api.push.apple.com", "api.push.apple.com", 443, "api.push.apple.com"),
        ("https://127.0.0.1:4443", "127.0.0.1", 4443, "127.0.0.1:4443"),
        ("https://[::1]:8443/", "::1", 8443, "[::1]:8443"),
    ] as [(String, String, UInt16, String)])
    func parse(url: String, host: String, port: UInt16, authority: String) throws {
        let origin = try HTTP2Origin(url: url)
        #expect(origin.host == host)
        #expect(origin.port == port)
        #expect(origin.authority == authority)
    }

    @Test("anything but https://host[:port] is refused", arguments: [
        "http://example.com", "https://", "https://example.com/3/device", "https://example.com:0",
        "https://example.com:70000", "https://user@example.com", "https://[::1", "example.com",
    ])
    func refuse(url: String) {
        #expect(throws: HTTP2ClientError.self) { _ = try HTTP2Origin(url: url) }
    }

    @Test("malformed requests fail before anything is sent", arguments: [
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "no-slash"),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/a\r\nb"),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("bad name", "x")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("connection", "close")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("x-a", "line\nbreak")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), method: "", path: "/"),
        // Names that are not lower-case tokens take the slower check: still refused.
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("Connection", "close")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("Transfer-Encoding", "chunked")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header(":path", "/x")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("", "x")]),
        HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/", headers: [HTTP2Header("x-a", "nul\u{0}byte")]),
    ])
    func invalid(request: HTTP2Request) async throws {
        let pool = try HTTP2ClientPool(logger: Logger(component: "test", minimumLevel: .error))
        await #expect { _ = try await pool.send(request) } throws: { ($0 as? HTTP2ClientError)?.kind == .invalidRequest }
        #expect(pool.statistics(for: request.origin).connections == 0)
        await pool.shutdown()
    }

    @Test("a name in upper case is sent in lower case, after the pseudo-headers")
    func lowerCased() throws {
        let request = HTTP2Request(origin: HTTP2Origin(host: "127.0.0.1", port: 1), path: "/3/device/a",
                                   headers: [HTTP2Header("X-Upper", "Value"), HTTP2Header("apns-topic", "t")])
        let names = try HeaderBlock(request: request).withNameValuePairs { pairs in
            pairs.map { String(decoding: UnsafeBufferPointer(start: $0.name, count: $0.namelen), as: UTF8.self) }
        }
        #expect(names == [":method", ":scheme", ":authority", ":path", "x-upper", "apns-topic"])
    }
}
