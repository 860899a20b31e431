import PushgateHTTP
import Testing

@Suite struct RouterTests {
    private static func router() -> Router {
        var router = Router()
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
        for path in ["/nope", "/healthz/", "//healthz", "/api/sessions//view", "/api/sessions/a/view/x", "", "healthz", "/api/a/b/c"] {
            #expect(status(router, "GET", path) == 404, "\(path)")
        }
        #expect(status(router, "GET", "/api/sessions/a") == 405, "a parameter pattern knows the path too (PUT /api/:kind/:id)")
    }

    @Test func wrongMethodIs405WithAllowNamingThePathsMethods() throws {
        let router = Self.router()
        guard case .response(let response) = router.match(method: "DELETE", path: "/healthz") else {
            Issue.record("a wrong method must not route")
            return
        }
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
        #expect(response.body.isEmpty)
        #expect(status(router, "get", "/healthz") == 405, "methods are case-sensitive")
        #expect(status(router, "GET", "/v1/push/send") == 405)
        #expect(status(router, "GET", "/unknown") == 404)
    }

    @Test func allowListsEveryRouteOfThePathInTheOrderAdded() throws {
        var router = Router()
        router.delete("/v1/devices/:id") { _ in HTTPResponse(status: 204) }
        router.post("/v1/devices") { _ in HTTPResponse(status: 200) }
        router.get("/v1/devices") { _ in HTTPResponse(status: 200) }
        guard case .response(let devices) = router.match(method: "PUT", path: "/v1/devices") else { Issue.record("PUT"); return }
        #expect(devices.headers["allow"] == "POST, GET, HEAD")
        guard case .response(let one) = router.match(method: "GET", path: "/v1/devices/7") else { Issue.record("GET"); return }
        #expect(one.headers["allow"] == "DELETE")
    }

    @Test func aPatternsOwn405KeepsItsBodyAndGetsAllow() throws {
        var router = Router()
        router.post("/v1/push") { _ in HTTPResponse(status: 200) }
        router.answerMethodNotAllowed(on: "/v1/push", with: .json(405, Array(#"{"ok":false}"#.utf8)))
        router.get("/healthz") { _ in HTTPResponse(status: 200) }
        guard case .response(let push) = router.match(method: "GET", path: "/v1/push") else { Issue.record("GET"); return }
        #expect(push.status == 405 && push.headers["allow"] == "POST" && push.body == Array(#"{"ok":false}"#.utf8))
        #expect(push.headers["content-type"] == "application/json")
        guard case .response(let health) = router.match(method: "POST", path: "/healthz") else { Issue.record("POST"); return }
        #expect(health.body.isEmpty, "another pattern's 405 stays empty")
    }

    @Test func headFallsBackToGetUnlessAHeadRouteExists() async throws {
        var router = Self.router()
        #expect(routed(router, "HEAD", "/healthz")?.0 == "/healthz")
        #expect(status(router, "HEAD", "/v1/push/send") == 405)
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
}
