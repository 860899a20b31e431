import Foundation
import Testing
import PushgateCore
import PushgateStore
import PushgateTesting

/// A gateway relay child process killed with SIGKILL while its coalescing windows are open, then
/// started again on the same database: the windows come back from the outbox and every phone
/// gets its summary (docs/gateway.md "Coalescing and delivery"). The host is `pushgate gateway`.
@Suite(.serialized, .timeLimit(.minutes(1))) struct GatewayKillNineTests {
    /// Long enough for the sends and the kill to happen inside every window.
    static let coalesceMs = 5_000

    @Test func openWindowsSurviveKillNineOnSQLite() async throws {
        try await Self.expectOpenWindowsSurviveKillNine(databaseURL: nil)
    }

    @Test func openWindowsSurviveKillNineOnPostgreSQL() async throws {
        try await Self.expectOpenWindowsSurviveKillNine(databaseURL: PostgreSQLTestServer.required().createDatabase())
    }

    /// Three phones, two notifications to each, SIGKILL before their windows end, a second relay
    /// on the same database (a SQLite file in the directory, or `databaseURL`).
    static func expectOpenWindowsSurviveKillNine(databaseURL: String?) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let apnsKey = P256PrivateKey()
        var fakeConfiguration = FakeAPNs.Configuration()
        fakeConfiguration.credentials = .init(publicKey: apnsKey.publicKey, keyId: "KEYID12345", teamId: "TEAMID1234")
        let fake = try FakeAPNs(configuration: fakeConfiguration)
        defer { fake.stop() }
        let caFile = directory.appendingPathComponent("fake-apns-ca.pem").path
        try fake.writeCertificate(to: caFile)
        var environment = try fake.relayEnvironment(apnsKey: apnsKey, keyId: "KEYID12345", teamId: "TEAMID1234",
                                                    bundleId: GatewayHarness.bundleId, caFile: caFile,
                                                    databasePath: directory.appendingPathComponent("relay.sqlite").path)
        environment["PUSHGATE_GATEWAY_PUBLIC_URL"] = GatewayHarness.origin
        environment["PUSHGATE_GATEWAY_COALESCE_MS"] = "\(coalesceMs)"
        if let databaseURL { environment["PUSHGATE_RELAY_DATABASE_URL"] = databaseURL }

        let first = try RelayProcess(environment: environment)
        let port = try #require(await blocking { first.port() })
        let keyFile = directory.appendingPathComponent("host.key").path
        #expect(try await GatewayToolTests.tool(["gateway", "key", "--out", keyFile]).status == 0)
        let host = ["--gateway", "http://127.0.0.1:\(port)", "--origin", GatewayHarness.origin, "--key", keyFile,
                    "--session", directory.appendingPathComponent("host.session").path]
        let tokens = (0 ..< 3).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        var ids: [String] = []
        for (index, token) in tokens.enumerated() {
            let register = try await GatewayToolTests.tool(["gateway", "register"] + host + ["--device-id", "phone-\(index)",
                                                                                            "--token", token, "--env", "sandbox"])
            let answer = try JSONValue.parse(String(register.out.dropFirst(4)))
            ids.append(try #require(answer["registrationId"]?.stringValue, "\(register.err)"))
        }
        for seq in 1 ... 2 {
            let send = try await GatewayToolTests.tool(["gateway", "send"] + host + [
                "--registrations", ids.joined(separator: ","), "--title", "Agent \(seq)", "--notification-id", "note-\(seq)",
                "--seq", "\(seq)",
            ])
            #expect(send.out.components(separatedBy: "\"queued\"").count == ids.count + 1, "\(send.out) \(send.err)")
        }
        try #require(fake.requests.isEmpty, "every window is still open at the kill")
        first.signal(SIGKILL)
        _ = try await blocking { first.exitStatus() }
        if let databaseURL { try await waitUntilTheKilledRelaysSessionsEnded(databaseURL) }

        let second = try RelayProcess(environment: environment)
        _ = try #require(await blocking { second.port() })
        try await fake.waitForRequests(tokens.count)
        let summaries = fake.requests
        #expect(summaries.count == tokens.count && Set(summaries.compactMap(\.deviceToken)) == Set(tokens))
        for summary in summaries {
            #expect(summary.status == 200)
            #expect(summary.payload?["orca"]?["coalescedCount"] == 2 && summary.payload?["orca"]?["notificationId"] == "note-2")
        }
        second.signal(SIGTERM)
        #expect(try await blocking { second.exitStatus() }.status == 0)
    }

    /// The killed relay's PostgreSQL sessions end a moment after it did, and only then does a
    /// relay take its outbox rows over: waits (at most 10 s) until its holder lock is free.
    private static func waitUntilTheKilledRelaysSessionsEnded(_ url: String) async throws {
        try await blocking {
            let connection = try PostgreSQLConnection(url: PostgreSQLURL(url),
                                                      session: .init(writeLockKey: nil, setup: ["SET lock_timeout = '10s'"]))
            for holder in try connection.texts("SELECT DISTINCT holder FROM push_outbox", []).compactMap({ Int64($0) }) {
                try connection.writeTransaction { _ = try connection.texts("SELECT pg_advisory_xact_lock(?1)::text", [.integer(holder)]) }
            }
        }
    }
}
