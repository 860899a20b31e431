import Foundation
import Testing
@testable import PushgateCore
import PushgateStore
import PushgateTesting
import PushgateTestSupport

/// The gateway of a relay on PostgreSQL (`DATABASE_URL`): the whole flow end to end against the
/// fake APNs, hashed storage, and two relays on one database keeping the device cap and the
/// send quota exact (protocol/gateway.md §12 lines 17 and 24).
@Suite(.serialized, .hangLimit(.minutes(1))) struct GatewayPostgreSQLTests {
    /// A relay with the gateway on, its store in the PostgreSQL database at `url`.
    private static func relay(_ url: String) async throws -> GatewayHarness {
        try await GatewayHarness(relaySettings: ["DATABASE_URL": url])
    }

    /// The text columns of a query on the database at `url`, on a connection of its own.
    private static func texts(_ url: String, _ sql: String, _ parameters: [SQLValue] = []) async throws -> [String] {
        try await onOwnThread {
            try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: nil)).texts(sql, parameters)
        }
    }

    @Test func handshakeRegisterAndSendReachTheFakeAPNs() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let harness = try await Self.relay(url)
        let host = try harness.newHost()
        let session = try await harness.handshake(host)
        let token = Hex.encode(SecureRandom.bytes(32))
        let id = try await harness.register(GatewayHarness.device("phone", token: token), session: session)
        #expect(try await harness.send(GatewayHarness.send([id], title: "On PostgreSQL"), session: session) == ["\(id):queued"])
        await harness.advance(byMs: 3_000)
        let request = try #require(harness.fake.requests.first)
        #expect(harness.fake.requests.count == 1)
        #expect(request.deviceToken == token)
        #expect(request.payload?["aps"]?["alert"]?["title"] == "On PostgreSQL")
        #expect(request.payload?["orca"]?["hostFingerprint"]?.stringValue == host.hostFingerprint)
        #expect(harness.gateway.counter("delivery_sent") == 1)

        // Only hashes of the session token and the expected proof are stored (§8).
        let tokenHash = Base64URL.encode(SHA256.hash(Array(session.utf8)))
        #expect(try await Self.texts(url, "SELECT token_hash || ' ' || host_fingerprint FROM push_sessions")
                    == ["\(tokenHash) \(host.hostFingerprint)"])
        let challenges = try await Self.texts(url, "SELECT secret_hash || ' ' || (transcript IS NULL)::text FROM push_challenges")
        #expect(challenges.count == 1 && challenges[0].count == 43 + 5, "\(challenges)")
        #expect(try await Self.texts(url, "SELECT count(*)::text FROM push_send_log WHERE registration_id = ?1", [.text(id)]) == ["1"])
        #expect(try await Self.texts(url, "SELECT host_public_key FROM push_hosts") == [host.challengeRequest["hostPublicKeyB64"]?.stringValue ?? "?"])
        await harness.stop()
    }

    /// PostgreSQL drops every gateway session (as a restart does) while relay A holds a collecting
    /// window. Before A's next statement, relay B's adoption takes its rows over; B's first try
    /// fails (503), so B still holds the rows when A's timer fires. A's claim returns nothing, A
    /// sends nothing, and B's retry delivers the window: the phone gets one push.
    @Test func aWindowTakenOverWhileItsRelayWasDisconnectedIsSentOnce() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let relays = [try await Self.relay(url), try await Self.relay(url)]
        let session = try await relays[0].handshake(try relays[0].newHost())
        let token = Hex.encode(SecureRandom.bytes(32))
        let id = try await relays[0].register(GatewayHarness.device("phone", token: token), session: session)
        #expect(try await relays[0].send(GatewayHarness.send([id], title: "Once"), session: session) == ["\(id):queued"])
        let terminated = try await Self.texts(url, """
            SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
            WHERE application_name = ?1 AND datname = current_database()
            """, [.text(PostgreSQLGatewayStore.applicationName)])
        #expect(!terminated.isEmpty && terminated.allSatisfy { $0 == "true" })
        try await GatewayKillNineTests.waitUntilOutboxHoldersEnded(url)
        relays[1].fake.script(token: token, sequence: [ScriptedResponse(status: 503, reason: .serviceUnavailable),
                                                       ScriptedResponse(status: 200)])
        await relays[1].advance(byMs: 30_000)  // its adoption interval
        await relays[1].advance(byMs: 0)
        #expect(relays[1].fake.requests.map(\.status) == [503], "B took the window over and holds it for its retry")
        await relays[0].advance(byMs: 3_000)
        #expect(relays[0].fake.requests.isEmpty, "A sends nothing: its claim found the rows taken over")
        #expect(relays[0].logs.lines.contains { $0.contains("taken over by another relay") })
        await relays[1].advance(byMs: 1_500)
        #expect(relays[1].fake.requests.map(\.status) == [503, 200])
        #expect(try await Self.texts(url, "SELECT count(*)::text FROM push_outbox") == ["0"])
        for relay in relays { await relay.stop() }
    }

    @Test func twoRelaysOnOneDatabaseKeepTheDeviceCapAndTheQuotaExact() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let relays = [try await Self.relay(url), try await Self.relay(url)]
        let session = try await relays[0].handshake(try relays[0].newHost())

        // 80 new device ids at once, half through each relay: exactly 64 fit.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0 ..< 80 {
                let relay = relays[index % 2]
                group.addTask { try await relay.call("POST", "/v1/devices", json: GatewayHarness.device("new-\(index)"), session: session).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 64)
        #expect(statuses.filter { $0 == 409 }.count == 16)
        #expect(try await Self.texts(url, "SELECT count(*)::text FROM push_devices") == ["64"])

        // The session minted by the first relay lists them at the second.
        let listed = try await relays[1].call("GET", "/v1/devices", session: session)
        let ids = try #require(listed.json?["devices"]?.arrayValue?.compactMap { $0["registrationId"]?.stringValue })
        #expect(ids.count == 64)

        // 100 single-id sends at once, half through each relay: exactly 60 are queued.
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for index in 0 ..< 100 {
                let (relay, id) = (relays[index % 2], ids[index % 4])
                group.addTask { try await relay.send(GatewayHarness.send([id]), session: session) }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(results.filter { $0.hasSuffix(":queued") }.count == 60)
        #expect(results.filter { $0.hasSuffix(":rate_limited") }.count == 40)
        #expect(try await Self.texts(url, "SELECT count(*)::text FROM push_send_log") == ["60"])
        #expect(relays[0].gateway.counter("send_queued") + relays[1].gateway.counter("send_queued") == 60)
        for relay in relays { await relay.stop() }
    }

    /// `GET /ready` answers from the store's last probe, not a query per request: with the
    /// database refusing connections it stays 200 until the next probe (every 10 s), then 503,
    /// and 200 again after the probe that finds the database back.
    @Test func readyAnswersFromTheLastProbeOfTheStore() async throws {
        let server = try await PostgreSQLTestServer.required()
        let url = try await server.createDatabase()
        let name = String(url.split(separator: "/").last ?? "")
        let harness = try await Self.relay(url)
        func admin(_ sql: String) async throws {
            _ = try await Self.texts(server.url(database: "postgres"), sql)
        }
        try await admin("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        try await admin("SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = '\(name)'")
        for _ in 0 ..< 20 { #expect(try await harness.call("GET", "/ready").status == 200, "the last probe found the store") }
        await harness.advance(byMs: 10_000)
        let down = try await harness.call("GET", "/ready")
        #expect(down.status == 503 && down.error == "dependency_unavailable")
        try await admin("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
        #expect(try await harness.call("GET", "/ready").status == 503, "until the next probe")
        await harness.advance(byMs: 10_000)
        #expect(try await harness.call("GET", "/ready").status == 200)
        await harness.stop()
    }
}
