import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 line 3 and the error answers of §2.
@Suite(.hangLimit(.minutes(1))) struct APITests {
    @Test func everyAPIRouteNeedsTheBearerToken() async throws {
        let harness = try await HostHarness(mode: .off)
        let token = harness.service.settings.accessToken
        let wrong = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
        for (method, path) in [("GET", "/api/status"), ("POST", "/api/events"), ("POST", "/api/push/apns-token"),
                               ("POST", "/api/sessions/s1/view"), ("DELETE", "/api/push/apns-token")] {
            for bearer in ["", wrong, "short"] {
                let answer = try await harness.call(method, path, bearer: bearer)
                #expect(answer.status == 401, "\(method) \(path)")
                #expect(answer.json == .object(JSONObject([("error", "unauthorized")])))
            }
        }
        let status = try await harness.call("GET", "/api/status")
        #expect(status.status == 200)
        #expect(status.json?["serverId"] == .string(harness.service.settings.serverId))
        #expect(status.json?["iosPush"]?["mode"] == "off")
        await harness.stop()
    }

    @Test func invalidBodiesNameTheFieldAndLimitsHold() async throws {
        let harness = try await HostHarness(mode: .off)
        func field(_ path: String, _ body: JSONValue?, raw: [UInt8]? = nil) async throws -> JSONValue? {
            let answer = try await harness.call("POST", path, body, rawBody: raw)
            #expect(answer.status == 400)
            return answer.json?["field"]
        }
        #expect(try await field("/api/push/apns-token", .object(JSONObject([("token", "xyz")]))) == "token")
        #expect(try await field("/api/push/apns-token", .object(JSONObject([("token", .string(TestToken.make())), ("environment", "dev")]))) == "environment")
        #expect(try await field("/api/events", .object(JSONObject([("sessionId", "s")]))) == "type")
        #expect(try await field("/api/events", .object(JSONObject([("type", "ready"), ("sessionId", "")]))) == "sessionId")
        #expect(try await field("/api/events", nil, raw: Array("{".utf8)) == "body")
        for eventId: JSONValue in ["", .string(String(repeating: "e", count: EventId.maxBytes + 1)), "a b", "é", "a/b", 7] {
            #expect(try await field("/api/events", .object(JSONObject([("type", "error"), ("sessionId", "s"), ("eventId", eventId)]))) == "eventId")
        }
        #expect(try await field("/api/push/visibility", .object(JSONObject([("visible", "yes")]))) == "visible")
        let big = try await harness.call("POST", "/api/events", rawBody: [UInt8](repeating: 0x20, count: HostAPI.maxBodyBytes + 1))
        #expect(big.status == 413)
        #expect(try await harness.call("GET", "/api/nothing-here").status == 404)
        #expect(try await harness.call("PUT", "/api/status").status == 405)
        let unknownType = try await harness.call("POST", "/api/events", .object(JSONObject([("type", "brand_new"), ("sessionId", "s")])))
        #expect(unknownType.status == 200 && unknownType.json?["nativeDelivered"] == false)
        await harness.stop()
    }

    /// A known path asked with another method is 405 naming the path's methods (docs/host.md,
    /// "API"), before the bearer is looked at; an unknown path stays 404.
    @Test func aKnownPathsOtherMethodsAre405WithAllow() async throws {
        let harness = try await HostHarness(mode: .off)
        let paths: [(path: String, allow: String)] = [
            ("/api/push/apns-token", "POST, DELETE"), ("/api/push/visibility", "POST"), ("/api/sessions/s1/view", "POST"),
            ("/api/sessions/s1/message-sent", "POST"), ("/api/events", "POST"), ("/api/devices/register", "POST, DELETE"),
            ("/api/status", "GET, HEAD"), ("/api/push/live-activity-token", "POST, DELETE"), ("/api/sessions/s1/state", "PUT"),
        ]
        for (path, allow) in paths {
            let taken = allow.components(separatedBy: ", ")
            for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW"] where !taken.contains(method) {
                let answer = try await harness.methodAnswer(method, path)
                #expect(answer.status == 405 && answer.allow == allow, "\(method) \(path)")
            }
        }
        #expect(try await harness.methodAnswer("GET", "/api/status").status == 401, "a served method still needs the bearer")
        let unknown = try await harness.methodAnswer("GET", "/api/sessions/s1")
        #expect(unknown.status == 404 && unknown.allow == nil)
        await harness.stop()
    }

    @Test func statusReportsTheTransportHealth() async throws {
        let harness = try await HostHarness()
        func health() async throws -> JSONValue? { try await harness.call("GET", "/api/status").json?["iosPush"]?["health"] }
        #expect(try await health()?["state"] == "unknown")
        let token = TestToken.make()
        try await harness.register(token)
        _ = try await harness.event("error", "s1")
        let healthy = try await health()
        #expect(healthy?["state"] == "ok" && healthy?["lastSuccessAt"] == .integer(harness.clock.nowMilliseconds))
        harness.fake.script(token: token, ScriptedResponse(status: 500, reason: .internalServerError))
        harness.clock.advance(milliseconds: 1_000)
        _ = try await harness.event("error", "s2")
        _ = try await harness.event("error", "s3")
        let failing = try await health()
        #expect(failing?["state"] == "failing" && failing?["consecutiveFailures"] == 2)
        #expect(failing?["lastFailureAt"] == .integer(harness.clock.nowMilliseconds))
        harness.fake.clearScripts()
        _ = try await harness.event("error", "s4")
        #expect(try await health()?["state"] == "ok")
        await harness.stop()
    }
}
