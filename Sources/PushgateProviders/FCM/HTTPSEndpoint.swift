import PushgateHTTP

/// An `https://host[:port]/path` URL split into the HTTP/2 origin and the request path.
public struct HTTPSEndpoint: Sendable, Equatable, CustomStringConvertible {
    public let origin: HTTP2Origin
    /// The `:path`, starting with `/` (`/` when the URL has none).
    public let path: String

    /// Parses `url`; throws ``HTTP2ClientError`` (`invalidRequest`) for anything but an https URL
    /// without user info, query or fragment.
    public init(url: String) throws {
        let invalid = HTTP2ClientError(.invalidRequest, detail: "endpoint must look like https://host[:port]/path")
        guard url.hasPrefix("https://"), !url.contains("?"), !url.contains("#") else { throw invalid }
        let rest = url.dropFirst("https://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        origin = try HTTP2Origin(url: "https://" + rest[..<slash])
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
    }

    public var description: String { origin.description + path }
}
