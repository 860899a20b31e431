package import CNGHTTP2

/// The scheme-host-port of an HTTPS server: one pool of HTTP/2 connections per origin.
public struct HTTP2Origin: Hashable, Sendable, CustomStringConvertible {
    /// A DNS name or an IP literal (IPv6 without brackets).
    public let host: String
    public let port: UInt16
    /// The `:authority` pseudo-header: host, plus the port unless it is 443. Made once, as every
    /// request to the origin sends it.
    public let authority: String

    public init(host: String, port: UInt16 = 443) {
        self.host = host
        self.port = port
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        authority = port == 443 ? name : "\(name):\(port)"
    }

    /// Parses `https://host[:port]` (IPv6 in brackets); a trailing `/` is allowed, any other path is not.
    public init(url: String) throws {
        let invalid = HTTP2ClientError(.invalidRequest, detail: "origin must look like https://host[:port]")
        guard url.hasPrefix("https://") else { throw invalid }
        var rest = Substring(url.dropFirst("https://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else { throw invalid }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw invalid }
        var port: UInt16 = 443
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { throw invalid }
            port = parsed
        }
        self.init(host: String(host), port: port)
    }

    public var description: String { "https://\(authority)" }
}

/// A request to send over an HTTP/2 connection to `origin`.
public struct HTTP2Request: Sendable {
    public var origin: HTTP2Origin
    public var method: String
    /// The `:path`, starting with `/`.
    public var path: String
    /// Regular (non-pseudo) headers; names are lower-cased when sent.
    public var headers: [HTTP2Header]
    public var body: [UInt8]
    /// Overrides the pool's request timeout, in milliseconds.
    public var timeoutMilliseconds: Int64?

    public init(origin: HTTP2Origin, method: String = "POST", path: String, headers: [HTTP2Header] = [],
                body: [UInt8] = [], timeoutMilliseconds: Int64? = nil) {
        self.origin = origin
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

/// A complete HTTP/2 response.
public struct HTTP2Response: Sendable {
    public let status: Int
    /// Response headers without pseudo-headers, names in lower case.
    public let headers: [HTTP2Header]
    /// The body, at most the pool's `maxResponseBodyBytes`.
    public let body: [UInt8]
    /// Whether the server sent more than `maxResponseBodyBytes` (the rest was discarded).
    public let bodyTruncated: Bool

    public init(status: Int, headers: [HTTP2Header], body: [UInt8], bodyTruncated: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
    }
}

/// One HTTP/2 header field. Names are sent in lower case, as HTTP/2 requires.
public struct HTTP2Header: Hashable, Sendable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTP2Header {
    /// The value of the first header named `name` (compared in lower case).
    public func first(named name: String) -> String? {
        let wanted = name.lowercased()
        return first { $0.name == wanted }?.value
    }
}

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
        // 34: the pseudo-header names and `https`.
        var capacity = 34 + request.method.utf8.count + request.origin.authority.utf8.count + request.path.utf8.count
        for header in request.headers { capacity += header.name.utf8.count + header.value.utf8.count }
        bytes.reserveCapacity(capacity)
        layout.reserveCapacity(3 * (4 + request.headers.count))
        append(":method", request.method)
        append(":scheme", "https")
        append(":authority", request.origin.authority)
        append(":path", request.path)
        for header in request.headers {
            // Callers send valid lower-case names; only another name is lower-cased and looked at again.
            let name = Self.isLowerCaseFieldName(header.name) ? header.name : try Self.checkedFieldName(header.name)
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
            // On the stack: a request's few fields need no heap array of their own.
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: count) { pairs in
                for index in 0..<count {
                    let nameOffset = layout[3 * index]
                    let nameLength = layout[3 * index + 1]
                    pairs.initializeElement(at: index, to: nghttp2_nv(name: base + nameOffset, value: base + nameOffset + nameLength,
                                                                      namelen: nameLength, valuelen: layout[3 * index + 2],
                                                                      flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                return body(UnsafeBufferPointer(pairs))
            }
        }
    }

    /// RFC 9110 token characters, lower case only (HTTP/2 field names must be lower case).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return true  // methods are upper case
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// A valid field name as HTTP/2 sends it: lower-case token characters, not connection-specific.
    /// One pass over the bytes, as every header of every request goes through it.
    private static func isLowerCaseFieldName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            !bytes.isEmpty && !bytes.contains { !isTokenByte($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        } && !isConnectionSpecific(name)
    }

    /// `name` lower-cased when it holds an upper-case letter, or the error when that is no valid field name.
    private static func checkedFieldName(_ name: String) throws(HTTP2ClientError) -> String {
        let sent = name.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) ? name.lowercased() : name
        guard isLowerCaseFieldName(sent) else {
            throw HTTP2ClientError(.invalidRequest, detail: "invalid header name \(sent)")
        }
        return sent
    }

    private static func isValidValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in !bytes.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D } }
    }

    /// RFC 9113 §8.2.2: connection-specific fields are malformed in HTTP/2.
    private static func isConnectionSpecific(_ name: String) -> Bool {
        switch name {
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host": return true
        default: return false
        }
    }
}
