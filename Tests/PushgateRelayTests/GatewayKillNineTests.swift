import Foundation
import Testing
import PushgateCore
import PushgateStore
import PushgateTesting
import PushgateTestSupport

/// A gateway relay child process killed with SIGKILL while its coalescing windows are open, then
/// started again on the same database: the windows come back from the outbox and every phone
/// gets its summary (docs/gateway.md "Coalescing and delivery"). The host is `pushgate gateway`.
@Suite(.serialized, .hangLimit(.minutes(2))) struct GatewayKillNineTests {
    /// Long enough for the sends and the kill to happen inside every window.
    static let coalesceMs = 5_000

    @Test func openWindowsSurviveKillNineOnSQLite() async throws {
        try await Self.expectOpenWindowsSurviveKillNine(databaseURL: nil)
    }

    @Test func openWindowsSurviveKillNineOnPostgreSQL() async throws {
        try await Self.expectOpenWindowsSurviveKillNine(databaseURL: PostgreSQLTestServer.required().createDatabase())
    }

    @Test func aThrottledWindowIsResentAloneUnderItsCollapseIdAfterKillNineOnSQLite() async throws {
        try await Self.expectAThrottledWindowResentAloneAfterKillNine(databaseURL: nil)
    }

    @Test func aThrottledWindowIsResentAloneUnderItsCollapseIdAfterKillNineOnPostgreSQL() async throws {
        try await Self.expectAThrottledWindowResentAloneAfterKillNine(databaseURL: PostgreSQLTestServer.required().createDatabase())
    }

    /// Three phones, two notifications to each, SIGKILL before their windows end, a second relay
    /// on the same database (a SQLite file in the directory, or `databaseURL`).
    static func expectOpenWindowsSurviveKillNine(databaseURL: String?) async throws {
        let rig = try await Rig(databaseURL: databaseURL, coalesceMs: coalesceMs)
        defer { rig.stop() }
        let tokens = (0 ..< 3).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        let ids = try await rig.register(tokens)
        for seq in 1 ... 2 { try await rig.send(to: ids, seq: seq) }
        try #require(rig.fake.requests.isEmpty, "every window is still open at the kill")
        try await rig.killAndRestart()
        try await rig.fake.waitForRequests(tokens.count)
        let summaries = rig.fake.requests
        #expect(summaries.count == tokens.count && Set(summaries.compactMap(\.deviceToken)) == Set(tokens))
        for summary in summaries {
            #expect(summary.status == 200)
            #expect(summary.payload?["orca"]?["coalescedCount"] == 2 && summary.payload?["orca"]?["notificationId"] == "note-2")
        }
        try await rig.stopSecond()
    }

    /// One phone: its window of `note-1` is sent and throttled (429, `Retry-After: 30`), then
    /// `note-2` and `note-3` are queued, then SIGKILL while the retry waits. The second relay
    /// resends `note-1` alone, as first sent and under its collapse id, no sooner than its
    /// `Retry-After`, and the two new ones as a summary of their own.
    static func expectAThrottledWindowResentAloneAfterKillNine(databaseURL: String?) async throws {
        let rig = try await Rig(databaseURL: databaseURL, coalesceMs: 200)
        defer { rig.stop() }
        let token = Hex.encode(SecureRandom.bytes(32))
        let ids = try await rig.register([token])
        // Long enough for the two sends (each a `pushgate gateway send` process) and the kill to
        // come first also in a thread-sanitized build, where a process takes seconds to start.
        rig.fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 30)])
        // Before the send: the 429, and so the relay's clock for its Retry-After, comes later.
        let sentAt = Date()
        try await rig.send(to: ids, seq: 1)
        try await rig.fake.waitForRequests(1)
        for seq in 2 ... 3 { try await rig.send(to: ids, seq: seq) }
        try #require(rig.fake.requests.count == 1, "the retry still waits at the kill")
        rig.fake.script(token: token, sequence: [])
        try await rig.killAndRestart()
        try await rig.fake.waitForRequests(3, within: 60)
        let requests = rig.fake.requests
        #expect(requests.count == 3)
        let first = requests.filter { $0.payload?["orca"]?["notificationId"] == "note-1" }
        #expect(first.map(\.status) == [429, 200], "sent, throttled, then resent")
        #expect(Set(first.map { $0.headers.first { $0.name == "apns-collapse-id" }?.value }) == ["note-1"], "one collapse id")
        #expect(first.allSatisfy { $0.payload?["orca"]?["coalescedCount"] == 1 && $0.payload?["aps"]?["alert"]?["title"] == "Agent 1" })
        #expect(Date().timeIntervalSince(sentAt) >= 30, "the retry waited its Retry-After")
        let summary = requests.filter { $0.payload?["orca"]?["notificationId"] == "note-3" }
        #expect(summary.count == 1 && summary.first?.payload?["orca"]?["coalescedCount"] == 2)
        try await rig.stopSecond()
    }

    /// A fake APNs, a gateway relay process on a SQLite file in a fresh directory (or on
    /// `databaseURL`), and the host tool's arguments for it.
    private final class Rig {
        let directory: URL
        let fake: FakeAPNs
        let environment: [String: String]
        let databaseURL: String?
        let first: RelayProcess
        var second: RelayProcess?
        let host: [String]

        init(databaseURL: String?, coalesceMs: Int) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-kill-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let apnsKey = P256PrivateKey()
            var fakeConfiguration = FakeAPNs.Configuration()
            fakeConfiguration.credentials = .init(publicKey: apnsKey.publicKey, keyId: "KEYID12345", teamId: "TEAMID1234")
            let fake = try FakeAPNs(configuration: fakeConfiguration)
            var environment = try GatewayHarness.relayEnvironment(fake: fake, apnsKey: apnsKey, directory: directory)
            environment["PUSHGATE_GATEWAY_COALESCE_MS"] = "\(coalesceMs)"
            if let databaseURL { environment["PUSHGATE_RELAY_DATABASE_URL"] = databaseURL }
            let first = try RelayProcess(environment: environment)
            let port = try #require(await blocking { first.port() })
            let keyFile = directory.appendingPathComponent("host.key").path
            #expect(try await GatewayToolTests.tool(["gateway", "key", "--out", keyFile]).status == 0)
            self.directory = directory
            self.fake = fake
            self.environment = environment
            self.databaseURL = databaseURL
            self.first = first
            host = ["--gateway", "http://127.0.0.1:\(port)", "--origin", GatewayHarness.origin, "--key", keyFile,
                    "--session", directory.appendingPathComponent("host.session").path]
        }

        /// Registers one phone per token; their registration ids.
        func register(_ tokens: [String]) async throws -> [String] {
            var ids: [String] = []
            for (index, token) in tokens.enumerated() {
                let register = try await GatewayToolTests.tool(["gateway", "register"] + host + [
                    "--device-id", "phone-\(index)", "--token", token, "--env", "sandbox",
                ])
                let answer = try JSONValue.parse(String(register.out.dropFirst(4)))
                ids.append(try #require(answer["registrationId"]?.stringValue, "\(register.err)"))
            }
            return ids
        }

        /// Sends notification `note-<seq>` titled `Agent <seq>` to `ids`; each must be queued.
        func send(to ids: [String], seq: Int) async throws {
            let send = try await GatewayToolTests.tool(["gateway", "send"] + host + [
                "--registrations", ids.joined(separator: ","), "--title", "Agent \(seq)", "--notification-id", "note-\(seq)",
                "--seq", "\(seq)",
            ])
            try #require(send.out.components(separatedBy: "\"queued\"").count == ids.count + 1, "\(send.out) \(send.err)")
        }

        /// SIGKILL to the first relay, then a second on the same database once the first's rows are free.
        func killAndRestart() async throws {
            first.signal(SIGKILL)
            let first = first
            _ = try await blocking { first.exitStatus() }
            if let databaseURL { try await GatewayKillNineTests.waitUntilOutboxHoldersEnded(databaseURL) }
            let second = try RelayProcess(environment: environment)
            self.second = second
            _ = try #require(await blocking { second.port() })
        }

        /// SIGTERM to the second relay, which must exit cleanly.
        func stopSecond() async throws {
            let second = try #require(second)
            second.signal(SIGTERM)
            #expect(try await blocking { second.exitStatus() }.status == 0)
        }

        func stop() {
            fake.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A killed relay's (or a terminated session's) PostgreSQL sessions end a moment after, and
    /// only then does a relay take its outbox rows over: waits (at most 10 s) until the lock of
    /// every holder with rows is free.
    static func waitUntilOutboxHoldersEnded(_ url: String) async throws {
        try await blocking {
            let connection = try PostgreSQLConnection(url: PostgreSQLURL(url),
                                                      session: .init(writeLockKey: nil, setup: ["SET lock_timeout = '10s'"]))
            for holder in try connection.texts("SELECT DISTINCT holder FROM push_outbox", []).compactMap({ Int64($0) }) {
                try connection.writeTransaction { _ = try connection.texts("SELECT pg_advisory_xact_lock(?1)::text", [.integer(holder)]) }
            }
        }
    }
}
