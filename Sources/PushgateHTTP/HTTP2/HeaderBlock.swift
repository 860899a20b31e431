import CNGHTTP2

/// Header fields (pseudo-headers first) packed into one buffer, built by the caller's task so the
/// event loop only points nghttp2 at it.
package struct HeaderBlock: Sendable {
    private var bytes: [UInt8] = []
    /// Per field: offset of the name, name length, value length (the value follows the name).
    private var layout: [Int] = []

    var count: Int { layout.count / 3 }

    init(request: HTTP2Request) throws {
        guard request.path.hasPrefix("/"), Self.isValidValue(request.path) else {
            throw HTTP2ClientError(.invalidRequest, detail: "path must start with / and hold no control characters")
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(Self.isTokenByte) else {
            throw HTTP2ClientError(.invalidRequest, detail: "invalid method")
        }
        bytes.reserveCapacity(64 + request.path.utf8.count + request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
        layout.reserveCapacity(3 * (4 + request.headers.count))
        append(":method", request.method)
        append(":scheme", "https")
        append(":authority", request.origin.authority)
        append(":path", request.path)
        for header in request.headers {
            let name = header.name.lowercased()
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte), !Self.connectionSpecific.contains(name) else {
                throw HTTP2ClientError(.invalidRequest, detail: "invalid header name \(name)")
            }
            guard Self.isValidValue(header.value) else {
                throw HTTP2ClientError(.invalidRequest, detail: "invalid value for header \(name)")
            }
            append(name, header.value)
        }
    }

    /// A response's fields, as given: the fake server sends whatever its script says.
    package init(status: Int, headers: [(name: String, value: String)]) {
        append(":status", String(status))
        for (name, value) in headers { append(name, value) }
    }

    private mutating func append(_ name: String, _ value: String) {
        layout.append(bytes.count)
        bytes.append(contentsOf: name.utf8)
        layout.append(name.utf8.count)
        bytes.append(contentsOf: value.utf8)
        layout.append(value.utf8.count)
    }

    /// Lends nghttp2 name-value pairs pointing into the block; nghttp2 copies them during submission.
    package func withNameValuePairs<T>(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> T) -> T {
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let pairs = (0..<count).map { index -> nghttp2_nv in
                let nameOffset = layout[3 * index]
                let nameLength = layout[3 * index + 1]
                return nghttp2_nv(name: base + nameOffset, value: base + nameOffset + nameLength,
                                  namelen: nameLength, valuelen: layout[3 * index + 2], flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return pairs.withUnsafeBufferPointer(body)
        }
    }

    /// RFC 9110 token characters, lower case only (HTTP/2 field names must be lower case).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return true  // methods are upper case
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 != 0 && $0 != 0x0A && $0 != 0x0D }
    }

    /// RFC 9113 §8.2.2: connection-specific fields are malformed in HTTP/2.
    private static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]
}
