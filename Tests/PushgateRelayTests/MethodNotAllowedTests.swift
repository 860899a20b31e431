import Testing
import PushgateTestSupport

/// A known path asked with a method it does not take answers 405 with `allow` (docs/relay.md
/// "Order of checks"), before any limit, bearer or body; an unknown path stays 404.
@Suite(.hangLimit(.minutes(1))) struct MethodNotAllowedTests {
    /// Every path a relay with the gateway on serves, and the `allow` of its 405.
    static let paths: [(path: String, allow: String)] = [
        ("/v1/push/register-token", "POST"), ("/v1/push/unregister-token", "POST"),
        ("/v1/push/register-live-activity-token", "POST"), ("/v1/push/unregister-live-activity-token", "POST"),
        ("/v1/push/send", "POST"), ("/v1/push/live-activity", "POST"), ("/v1/push/background", "POST"),
        ("/healthz", "GET, HEAD"), ("/readyz", "GET, HEAD"), ("/v1/push", "POST"),
        ("/v1/host/challenge", "POST"), ("/v1/host/session", "POST"), ("/v1/devices", "POST, GET, HEAD"),
        ("/v1/devices/0f5c2b1e-0000-4000-8000-000000000000", "DELETE"), ("/v1/send", "POST"),
        ("/health", "GET, HEAD"), ("/ready", "GET, HEAD"),
    ]

    @Test func everyKnownPathAnswersItsOtherMethodsWith405AndAllow() async throws {
        let harness = try await GatewayHarness()
        for (path, allow) in Self.paths {
            let taken = allow.components(separatedBy: ", ")
            // HEAD is left out where a body would come with the 405 (hapi's), which HEAD never reads.
            let asked = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW"] + (path == "/v1/push" ? [] : ["HEAD"])
            for method in asked where !taken.contains(method) {
                let reply = try await harness.call(method, path)
                #expect(reply.status == 405, "\(method) \(path)")
                #expect(reply.headers["allow"] == allow, "\(method) \(path)")
                if path != "/v1/push" { #expect(reply.body.isEmpty, "\(method) \(path)") }
            }
        }
        await harness.stop()
    }

    @Test func hapisRouteKeepsItsOwnBodyAndUnknownPathsStay404() async throws {
        let harness = try await GatewayHarness()
        let hapi = try await harness.call("GET", "/v1/push")
        #expect(hapi.status == 405 && hapi.headers["allow"] == "POST")
        #expect(hapi.text == #"{"ok":false,"code":"method_not_allowed","message":"use POST"}"#)
        for path in ["/v1/push/nothing", "/healthz/", "/v1/devices/a/b", "/v1/pushes", "/metrics"] {
            let reply = try await harness.call("GET", path)
            #expect(reply.status == 404 && reply.body.isEmpty && reply.headers["allow"] == nil, "\(path)")
        }
        await harness.stop()
    }

    /// The method is checked first: a wrong method with a bad bearer, or with a body over the
    /// route's cap, is still 405, and spends nothing.
    @Test func theMethodIsCheckedBeforeBearerAndBody() async throws {
        let harness = try await GatewayHarness()
        let unauthenticated = try await harness.call("PUT", "/v1/devices", headers: ["Authorization: Bearer nope"])
        #expect(unauthenticated.status == 405 && unauthenticated.headers["allow"] == "POST, GET, HEAD")
        // Only the head is sent: the answer comes before the body is read, then the connection closes.
        let oversized = try await harness.call("PUT", "/v1/push/send", headers: ["Content-Length: \(70 * 1024)"])
        #expect(oversized.status == 405 && oversized.headers["allow"] == "POST")
        let metrics = try await harness.metrics()
        #expect(!metrics.contains("status=\"405\""), "a 405 is the router's, counted nowhere")
        await harness.stop()
    }
}
