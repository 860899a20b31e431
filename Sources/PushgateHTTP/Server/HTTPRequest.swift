/// One HTTP request as the server hands it to a route handler.
public struct HTTPRequest: Sendable {
    /// One `name=value` pair of the query string, percent-decoded; a name without `=` has an empty value.
    public struct QueryItem: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The request method as sent (`GET`, `POST`, …); a `HEAD` request keeps `HEAD` even when a `GET` route serves it.
    public var method: String
    /// The path without the query string, percent-decoded.
    public var path: String
    /// The query string's items in order.
    public var query: [QueryItem]
    /// The request header fields in order.
    public var headers: HTTPHeaders
    /// The complete request body (empty in the pre-body hook).
    public var body: [UInt8]
    /// The socket peer's IP address in text form (`127.0.0.1`, `::1`).
    public var peerAddress: String
    /// The pattern of the route that matched (`/api/sessions/:id/view`), or `nil` before routing.
    public var route: String?
    /// The values of the matched route's `:name` segments.
    public var parameters: RouteParameters

    public init(
        method: String,
        path: String,
        query: [QueryItem] = [],
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        peerAddress: String = "127.0.0.1",
        route: String? = nil,
        parameters: RouteParameters = RouteParameters()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
        self.route = route
        self.parameters = parameters
    }

    /// The value of the first query item named `name` (exact case), or `nil`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// A route handler: takes a request and produces its response; the server never blocks a thread on it.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse
