/// Maps method + path patterns (`/api/sessions/:id/view`) to handlers.
///
/// A `GET` route also answers `HEAD` (the server sends no body) unless a `HEAD` route exists.
/// - Important: relay-protocol.md §2 — an unknown path or a wrong method is a 404 with an
///   empty body; both are the defaults here.
public struct Router: Sendable {
    /// What a known path with a method it has no route for gets.
    public enum MethodMismatch: Sendable {
        /// The router's not-found response.
        case notFound
        /// 405 with an `allow` header naming the path's methods.
        case methodNotAllowed
    }

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

    /// The method of a route that answers every method (the handler tells them apart); a route
    /// with the request's own method, added earlier, still wins.
    public static let anyMethod = "*"

    /// The response for a path no route has (default: 404, empty body).
    public var notFoundResponse: HTTPResponse
    /// How a wrong method is answered (default: as not found).
    public var methodMismatch: MethodMismatch
    private var routes: [Route] = []

    public init(notFoundResponse: HTTPResponse = HTTPResponse(status: 404), methodMismatch: MethodMismatch = .notFound) {
        self.notFoundResponse = notFoundResponse
        self.methodMismatch = methodMismatch
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

    /// Routes a request by method and percent-decoded path.
    public func match(method: String, path: String) -> Match {
        var headFallback: (Route, [String])?
        var pathKnown = false
        for route in routes {
            guard let values = route.pattern.match(path) else { continue }
            if route.method == method || route.method == Self.anyMethod { return Self.matched(route, values) }
            if method == "HEAD" && route.method == "GET" && headFallback == nil { headFallback = (route, values) }
            pathKnown = true
        }
        if let (route, values) = headFallback { return Self.matched(route, values) }
        guard pathKnown, methodMismatch == .methodNotAllowed else { return .response(notFoundResponse) }
        return .response(HTTPResponse(status: 405, headers: ["allow": allowedMethods(path).joined(separator: ", ")]))
    }

    private static func matched(_ route: Route, _ values: [String]) -> Match {
        .route(
            pattern: route.pattern.text,
            parameters: RouteParameters(names: route.pattern.parameterNames, values: values),
            handler: route.handler)
    }

    private func allowedMethods(_ path: String) -> [String] {
        var methods: [String] = []
        for route in routes where route.pattern.match(path) != nil && !methods.contains(route.method) {
            methods.append(route.method)
        }
        if methods.contains("GET") && !methods.contains("HEAD") { methods.append("HEAD") }
        return methods
    }
}
