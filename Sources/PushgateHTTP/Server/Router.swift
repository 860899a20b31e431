/// Maps method + path patterns (`/api/sessions/:id/view`) to handlers.
///
/// The routes are the one table both dispatch and the `allow` header are read from: a path no
/// route has is not found (404, empty body, by default), and a path some route has, asked with
/// a method none of its routes has, is 405 with `allow` naming the path's methods — a
/// deliberate deviation from the relay protocol's "unknown method → 404" (docs/relay.md,
/// "Order of checks"). A `GET` route also answers `HEAD` (the server sends no body) unless a
/// `HEAD` route exists, and `allow` says so.
public struct Router: Sendable {
    /// The outcome of routing one request.
    public enum Match: Sendable {
        /// A route matched: its pattern, captured parameters and handler.
        case route(pattern: String, parameters: RouteParameters, handler: RouteHandler)
        /// No route: answer with this response (not found, or method not allowed).
        case response(HTTPResponse)
    }

    private struct Route: Sendable {
        let method: String
        let pattern: RoutePattern
        let handler: RouteHandler
    }

    /// The response for a path no route has (default: 404, empty body).
    public var notFoundResponse: HTTPResponse
    private var routes: [Route] = []
    /// The 405 of a pattern whose answer has a body of its own (hapi's `/v1/push`), by pattern;
    /// the router adds `allow`.
    private var methodNotAllowedResponses: [String: HTTPResponse] = [:]

    public init(notFoundResponse: HTTPResponse = HTTPResponse(status: 404)) {
        self.notFoundResponse = notFoundResponse
    }

    /// Adds a route; earlier routes win when several match. A malformed pattern is a programming error.
    public mutating func add(_ method: String, _ pattern: String, _ handler: RouteHandler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), handler: handler))
    }

    /// Adds a route whose handler continues on the cooperative pool after it awaits.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        add(method, pattern, RouteHandler(handler))
    }

    /// Adds a `GET` route (which also answers `HEAD`).
    public mutating func get(_ pattern: String, _ handler: @escaping HTTPHandler) { add("GET", pattern, handler) }

    /// Adds a `POST` route.
    public mutating func post(_ pattern: String, _ handler: @escaping HTTPHandler) { add("POST", pattern, handler) }

    /// Adds a `PUT` route.
    public mutating func put(_ pattern: String, _ handler: @escaping HTTPHandler) { add("PUT", pattern, handler) }

    /// Adds a `DELETE` route.
    public mutating func delete(_ pattern: String, _ handler: @escaping HTTPHandler) { add("DELETE", pattern, handler) }

    /// Answers a method `pattern`'s routes do not take with `response` (its status should be 405)
    /// instead of an empty 405; `allow` is still added from the routes.
    public mutating func answerMethodNotAllowed(on pattern: String, with response: HTTPResponse) {
        methodNotAllowedResponses[pattern] = response
    }

    /// Routes a request by method and percent-decoded path.
    public func match(method: String, path: String) -> Match {
        var headFallback: (Route, [String])?
        var knownPattern: String?
        for route in routes {
            guard let values = route.pattern.match(path) else { continue }
            if route.method == method { return Self.matched(route, values) }
            if method == "HEAD" && route.method == "GET" && headFallback == nil { headFallback = (route, values) }
            knownPattern = knownPattern ?? route.pattern.text
        }
        if let (route, values) = headFallback { return Self.matched(route, values) }
        guard let knownPattern else { return .response(notFoundResponse) }
        var response = methodNotAllowedResponses[knownPattern] ?? HTTPResponse(status: 405)
        response.headers.set("allow", allowedMethods(path).joined(separator: ", "))
        return .response(response)
    }

    private static func matched(_ route: Route, _ values: [String]) -> Match {
        .route(
            pattern: route.pattern.text,
            parameters: RouteParameters(names: route.pattern.parameterNames, values: values),
            handler: route.handler)
    }

    /// The methods of every route whose pattern matches `path`, in the order they were added,
    /// with `HEAD` after them when a `GET` answers it.
    private func allowedMethods(_ path: String) -> [String] {
        var methods: [String] = []
        for route in routes where route.pattern.match(path) != nil && !methods.contains(route.method) {
            methods.append(route.method)
        }
        if methods.contains("GET") && !methods.contains("HEAD") { methods.append("HEAD") }
        return methods
    }
}
