import Foundation
import PushgateCore
import PushgateTestSupport
import PushgateTesting
import Testing

/// docs/security.md M9, against the real `pushgate-relay` binary: a client that sends junk pays
/// for it from its own IP's budget on every route family, before its body is read; the
/// metrics are not on the public port.
@Suite(.serialized, .hangLimit(.minutes(1))) struct UnauthenticatedWorkTests {
    /// One route family: where to post, the per-IP budget, the answer to junk within it.
    private struct Family: Sendable {
        var path: String
        var budget: Int
        var junkStatus: Int
        var headers: [String] = []
    }

    @Test func junkBodiesSpendTheSendersBudgetOnEveryRouteFamily() async throws {
        let relay = try await RelayUnderAttack(settings: ["REGISTER_LIMIT_PER_MINUTE": "5", "SEND_LIMIT_PER_MINUTE": "5"], gateway: true)
        let families = [
            Family(path: "/v1/push/register-token", budget: 5, junkStatus: 400),
            Family(path: "/v1/push/send", budget: 5, junkStatus: 400),
            Family(path: "/v1/push", budget: 300, junkStatus: 400),
            Family(path: "/v1/host/challenge", budget: 30, junkStatus: 400),
            Family(path: "/v1/devices", budget: 240, junkStatus: 401, headers: ["Authorization: Bearer \(HostProof.newSessionToken())"]),
        ]
        try await onOwnThread { () throws in
            for (index, family) in families.enumerated() {
                let sender = attacker(2 * index), bystander = attacker(2 * index + 1)
                // Token buckets refill while the loop runs, so a few more than the budget may pass.
                let spent = try Self.junkUntilRefused(relay, family, from: sender)
                #expect(spent >= family.budget && spent <= 2 * family.budget, "\(family.path): \(spent) junk bodies answered")
                // Refused before the body is read: admitted, a head announcing 1 MiB would get 413
                // (401 on a bearer route without a bearer) at once, also without its body.
                var headOnly = try RawHTTPConnection.postHeadOnly(port: relay.port, path: family.path, length: 1 << 20, from: sender)
                for _ in 0 ..< 3 where headOnly.status != 429 {
                    _ = try Self.junkUntilRefused(relay, family, from: sender)  // a token refilled in between
                    headOnly = try RawHTTPConnection.postHeadOnly(port: relay.port, path: family.path, length: 1 << 20, from: sender)
                }
                #expect(headOnly.status == 429, "\(family.path): refused before the body")
                #expect(try relay.request("POST", family.path, body: Self.junk, headers: family.headers, from: bystander).status
                            == family.junkStatus, "\(family.path): another address keeps its budget")
            }
        }
        try await relay.stop()
    }

    private static let junk = Array(#"{"v":1,"junk":"#.utf8)

    /// Posts junk to `family` from `sender` until it is refused with 429; how many were answered
    /// as junk first (each with the family's junk status), at most twice the budget.
    private static func junkUntilRefused(_ relay: RelayUnderAttack, _ family: Family, from sender: String) throws -> Int {
        var answered = 0
        while answered <= 2 * family.budget {
            let reply = try relay.request("POST", family.path, body: junk, headers: family.headers, from: sender)
            if reply.status == 429 { break }
            #expect(reply.status == family.junkStatus, "\(family.path)")
            answered += 1
        }
        return answered
    }

    @Test func metricsAreServedOnTheMetricsListenerOnly() async throws {
        let relay = try await RelayUnderAttack(gateway: true)
        let onPublicPort = try await onOwnThread { try relay.request("GET", "/metrics") }
        #expect(onPublicPort.status == 404)
        #expect(try await onOwnThread { try relay.request("GET", "/healthz") }.status == 200)
        let metrics = try await onOwnThread { try relay.metrics() }
        #expect(metrics.contains(#"pushgate_relay_requests_total{route="healthz",status="200",outcome="ok"} 1"#))
        #expect(metrics.contains("pushgate_gateway_events_total"), "the gateway's counters are there too")
        let elsewhere = try await onOwnThread { () throws -> Int in
            let client = try RawHTTPConnection(port: relay.metricsPort)
            client.sendUnlessClosed(RawHTTPConnection.request("GET", "/healthz", headers: ["Connection: close"]))
            return try client.readResponse().status
        }
        #expect(elsewhere == 404, "the metrics listener serves nothing else")
        let wrongMethod = try await onOwnThread { () throws -> RawHTTPConnection.Response in
            let client = try RawHTTPConnection(port: relay.metricsPort)
            client.sendUnlessClosed(RawHTTPConnection.request("POST", "/metrics", headers: ["Connection: close"]))
            return try client.readResponse()
        }
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "GET, HEAD")

        // A metrics address in use stops start-up, as the public port's would.
        let clash = try RelayProcess(environment: ["PUSHGATE_RELAY_DRY_RUN": "1", "PUSHGATE_RELAY_PORT": "0",
                                                   "PUSHGATE_RELAY_DATABASE_PATH": ":memory:",
                                                   "PUSHGATE_RELAY_METRICS_LISTEN": "127.0.0.1:\(relay.metricsPort)"])
        let exit = try await onOwnThread { clash.exitStatus() }
        #expect(exit.status == 1 && exit.stderr.contains("relay could not start"), "\(exit.stderr)")
        try await relay.stop()
    }
}
