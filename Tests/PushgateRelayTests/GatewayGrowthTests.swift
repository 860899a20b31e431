import Foundation
import PushgateCore
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/gateway.md "Growth": hosts opened from many addresses cannot grow the gateway's tables
/// past `MAX_HOSTS`, each address adds at most `NEW_HOSTS_PER_IP_PER_HOUR`, hosts idle past
/// `HOST_TTL_DAYS` go, and a host already stored keeps working throughout.
@Suite(.serialized, .hangLimit(.minutes(1))) struct GatewayGrowthTests {
    /// A gateway on SQLite, or on PostgreSQL when `postgreSQL`, with the growth guards scaled down.
    private static func harness(postgreSQL: Bool) async throws -> GatewayHarness {
        let relaySettings = postgreSQL ? ["DATABASE_URL": try await PostgreSQLTestServer.required().createDatabase()] : [:]
        return try await GatewayHarness(settings: ["NEW_HOSTS_PER_IP_PER_HOUR": "2", "MAX_HOSTS": "12", "HOST_TTL_DAYS": "1"],
                                        relaySettings: relaySettings)
    }

    @Test(arguments: [false, true])
    func manyAddressesCannotGrowTheHostTableAndAKnownHostKeepsWorking(postgreSQL: Bool) async throws {
        let harness = try await Self.harness(postgreSQL: postgreSQL)
        let known = try harness.newHost()
        let session = try await harness.handshake(known)
        let phone = try await harness.register(GatewayHarness.device("phone"), session: session)

        // Eight addresses, three new hosts each: two fit each address's budget, eleven the table
        // (five addresses fill their budgets, the sixth takes the last place).
        var answers: [String: Int] = [:]
        for address in 0 ..< 8 {
            for _ in 0 ..< 3 {
                let reply = try await harness.openSession(try harness.newHost(), from: attacker(address))
                answers[reply.error ?? "ok", default: 0] += 1
            }
        }
        #expect(answers == ["ok": 11, "rate_limited": 5, "host_limit": 8], "\(answers)")
        #expect(harness.gateway.counter("new_host_rate_limited") == 5)
        let metrics = try await harness.metrics()
        #expect(metrics.contains("pushgate_gateway_events_total{event=\"host_limit_refused\"} 8"))

        // At the ceiling the known host opens its next session and its phone gets the push.
        let renewed = try await harness.handshake(known)
        #expect(try await harness.send(GatewayHarness.send([phone]), session: renewed) == ["\(phone):queued"])
        await harness.advance(byMs: 3_000)
        #expect(harness.fake.requests.count == 1)
        await harness.stop()
    }

    /// The periodic sweep removes hosts a day without a session (`HOST_TTL_DAYS` 1) with their
    /// phones, which makes room for newcomers; a host that keeps opening sessions stays.
    @Test func idleHostsAreSweptAndMakeRoom() async throws {
        let harness = try await Self.harness(postgreSQL: false)
        let known = try harness.newHost()
        _ = try await harness.register(GatewayHarness.device("phone"), session: try await harness.handshake(known))
        for address in 0 ..< 11 {
            let session = try await harness.handshake(try harness.newHost(), from: attacker(address))
            _ = try await harness.register(GatewayHarness.device("phone-\(address)"), session: session)
        }
        #expect(try harness.count("SELECT count(*) FROM push_hosts") == 12)
        #expect(try harness.count("SELECT count(*) FROM push_devices") == 12)
        #expect(try await harness.openSession(try harness.newHost(), from: attacker(7)).error == "host_limit")

        // Just short of a day on, the known host opens a session; once the others are a day idle
        // the sweep (every 10 min) removes them.
        await harness.advance(byMs: 86_400_000 - 60_000)
        let session = try await harness.handshake(known)
        await harness.advance(byMs: 1_200_000)
        #expect(try harness.count("SELECT count(*) FROM push_hosts") == 1)
        #expect(try harness.count("SELECT count(*) FROM push_devices") == 1)
        #expect(try await harness.call("GET", "/v1/devices", session: session).json?["devices"]?.arrayValue?.count == 1)
        #expect(try await harness.openSession(try harness.newHost(), from: attacker(7)).status == 200)
        await harness.stop()
    }
}
