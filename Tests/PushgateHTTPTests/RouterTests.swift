import PushgateHTTP
import Testing

@Suite struct RouterTests {
    private static func router(methodMismatch: Router.MethodMismatch = .notFound) -> Router {
        var router = Router(methodMismatch: methodMismatch)
        router.get("/") { _ in HTTPResponse(status: 200, body: Array("root".utf8)) }
        router.get("/healthz") { _ in HTTPResponse(status: 200) }
        router.post("/v1/push/send") { _ in HTTPResponse(status: 200) }
        router.get("/api/sessions/:id/view") { _ in HTTPResponse(status: 200) }
        router.put("/api/:kind/:id") { _ in HTTPResponse(status: 200) }
        return router
    }

    private func routed(_ router: Router, _ method: String, _ path: String) -> (String, RouteParameters)? {
        if case .route(let pattern, let parameters, _) = router.match(method: method, path: path) { return (pattern, parameters) }
        return nil
    }

    private func status(_ router: Router, _ method: String, _ path: String) -> Int? {
        if case .response(let response) = router.match(method: method, path: path) { return response.status }
        return nil
    }

    @Test func matchesLiteralsAndCapturesParameters() throws {
        let router = Self.router()
        #expect(routed(router, "GET", "/healthz")?.0 == "/healthz")
        #expect(routed(router, "GET", "/")?.0 == "/")
        let (pattern, parameters) = try #require(routed(router, "GET", "/api/sessions/abc-1/view"))
        #expect(pattern == "/api/sessions/:id/view")
        #expect(parameters["id"] == "abc-1")
        #expect(parameters["other"] == nil)
        let put = try #require(routed(router, "PUT", "/api/widgets/7"))
        #expect(put.1.names == ["kind", "id"])
        #expect(put.1.values == ["widgets", "7"])
    }

    @Test func unknownPathsEmptySegmentsAndTrailingSlashesAreNotFound() {
        let router = Self.router()
        for path in ["/nope", "/healthz/", "//healthz", "/api/sessions//view", "/api/sessions/a/view/x", "", "healthz", "/api/sessions/a"] {
            #expect(status(router, "GET", path) == 404, "\(path)")
        }
    }

    @Test func wrongMethodIsNotFoundByDefaultWithAnEmptyBody() throws {
        let router = Self.router()
        guard case .response(let response) = router.match(method: "GET", path: "/v1/push/send") else {
            Issue.record("a wrong method must not route")
            return
        }
        #expect(response.status == 404)
        #expect(response.body.isEmpty)
        #expect(status(router, "get", "/healthz") == 404, "methods are case-sensitive")
    }

    @Test func wrongMethodCanAnswer405WithAllow() throws {
        let router = Self.router(methodMismatch: .methodNotAllowed)
        guard case .response(let response) = router.match(method: "DELETE", path: "/healthz") else {
            Issue.record("a wrong method must not route")
            return
        }
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
        #expect(status(router, "GET", "/unknown") == 404)
    }

    @Test func headFallsBackToGetUnlessAHeadRouteExists() async throws {
        var router = Self.router()
        #expect(routed(router, "HEAD", "/healthz")?.0 == "/healthz")
        #expect(status(router, "HEAD", "/v1/push/send") == 404)
        router.add("HEAD", "/healthz") { _ in HTTPResponse(status: 204) }
        router.get("/healthz") { _ in HTTPResponse(status: 500) }
        guard case .route(_, _, let handler) = router.match(method: "HEAD", path: "/healthz") else {
            Issue.record("HEAD must route")
            return
        }
        #expect(await handler(HTTPRequest(method: "HEAD", path: "/healthz")).status == 204)
    }

    @Test func customNotFoundResponse() {
        let router = Router(notFoundResponse: .json(404, Array(#"{"error":"not_found"}"#.utf8)))
        guard case .response(let response) = router.match(method: "GET", path: "/x") else {
            Issue.record("an empty router must not route")
            return
        }
        #expect(response.body == Array(#"{"error":"not_found"}"#.utf8))
        #expect(response.headers["content-type"] == "application/json")
    }

    @Test func headersLookUpNamesInAnyCase() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add("x-a", "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        #expect(headers["content-typ"] == nil)
        headers.set("X-A", "3")
        #expect(headers.values(for: "x-a") == ["3"])
        #expect(headers.count == 2)
    }

    @Test func anAnyMethodRouteTakesEveryMethodAnEarlierRouteDoesNotClaim() async {
        var router = Router()
        router.post("/v1/push") { _ in HTTPResponse(status: 200) }
        router.add(Router.anyMethod, "/v1/push") { request in HTTPResponse(status: 405, body: Array(request.method.utf8)) }
        for method in ["GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW"] {
            guard case .route(_, _, let handler) = router.match(method: method, path: "/v1/push") else {
                Issue.record("\(method) was not routed")
                continue
            }
            let response = await handler(HTTPRequest(method: method, path: "/v1/push"))
            #expect(response.status == 405)
            #expect(response.body == Array(method.utf8))
        }
        guard case .route(_, _, let post) = router.match(method: "POST", path: "/v1/push") else { Issue.record("POST"); return }
        #expect(await post(HTTPRequest(method: "POST", path: "/v1/push")).status == 200)
        #expect(status(router, "GET", "/v1/push/send") == 404)
    }
}
