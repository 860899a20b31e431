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
        try await rig.kill()
        try await rig.restart()
        try await rig.fake.waitForRequests(tokens.count)
        let summaries = rig.fake.requests
        #expect(summaries.count == tokens.count && Set(summaries.compactMap(\.deviceToken)) == Set(tokens))
        for summary in summaries {
            #expect(summary.status == 200)
            #expect(summary.payload?["orca"]?["coalescedCount"] == 2 && summary.payload?["orca"]?["notificationId"] == "note-2")
        }
        try await rig.stopSecond()
    }

    /// One phone, whose pushes the provider throttles (429, `Retry-After: 30`) until the relay is
    /// killed: the window of `note-1` is sent and its retry written to the outbox, then `note-2`
    /// and `note-3` are queued, then SIGKILL. The second relay resends `note-1` alone, as first
    /// sent and under its collapse id, no sooner than its `Retry-After`, and delivers the two new
    /// ones once. Whether they make one summary or two, and whether theirs was sent (and
    /// throttled) before the kill, depends on how the host's sends fall against the 200 ms window:
    /// each is a process, which takes a second under the thread sanitizer. So this asserts what
    /// holds either way; that a restart keeps a sent window apart from newer notifications
    /// collecting for its phone is GatewayOutboxTests', on the manual clock.
    static func expectAThrottledWindowResentAloneAfterKillNine(databaseURL: String?) async throws {
        let rig = try await Rig(databaseURL: databaseURL, coalesceMs: 200)
        defer { rig.stop() }
        let token = Hex.encode(SecureRandom.bytes(32))
        let ids = try await rig.register([token])
        rig.fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 30)])
        // Before the send: the 429, and so the relay's clock for its Retry-After, comes later.
        let sentAt = Date()
        try await rig.send(to: ids, seq: 1)
        // A relay killed before its retry is on disk has not seen the 429 and sends again at once.
        try await rig.waitForOutboxAttempts(["1"])
        for seq in 2 ... 3 { try await rig.send(to: ids, seq: seq) }
        try await rig.kill()
        // Not before the kill: every push the first relay made was throttled, none delivered, so
        // each window is delivered exactly once, by the second.
        rig.fake.script(token: token, sequence: [])
        try await rig.restart()
        try await rig.fake.waitForRequests(within: 60) { requests in requests.filter { Self.notes(of: $0) == 1 ... 1 }.count == 2 }
        #expect(Date().timeIntervalSince(sentAt) >= 30, "the retry waited its Retry-After")
        try await rig.fake.waitForRequests(within: 60) { requests in
            Set(requests.filter { $0.status == 200 }.flatMap { Self.notes(of: $0) }) == [1, 2, 3]
        }
        let windows = Dictionary(grouping: rig.fake.requests, by: Self.notes(of:))
        #expect(windows.keys.sorted { $0.lowerBound < $1.lowerBound }.flatMap { $0 } == [1, 2, 3], "each notification in one window")
        for (notes, attempts) in windows {
            #expect(attempts.map(\.status) == Array(repeating: 429, count: attempts.count - 1) + [200], "\(notes): delivered once, last")
            let push = attempts[0]
            #expect(attempts.allSatisfy { $0.payload == push.payload && Self.collapseId(of: $0) == Self.collapseId(of: push) },
                    "\(notes): every attempt the same push")
        }
        let first = try #require(windows[1 ... 1]?.first, "note-1 alone")
        #expect(first.payload?["aps"]?["alert"]?["title"] == "Agent 1" && Self.collapseId(of: first) == "note-1")
        try await rig.stopSecond()
    }

    /// The notifications a push summarises, by their `seq`: its latest, `note-<seq>`, and those
    /// before it that it coalesced.
    static func notes(of request: RecordedRequest) -> ClosedRange<Int> {
        let orca = request.payload?["orca"]
        let latest = orca?["notificationId"]?.stringValue.flatMap { Int($0.dropFirst("note-".count)) } ?? 0
        let count = Int(orca?["coalescedCount"]?.int64Value ?? 1)
        return latest - count + 1 ... latest
    }

    /// The push's `apns-collapse-id`.
    static func collapseId(of request: RecordedRequest) -> String? {
        request.headers.first { $0.name == "apns-collapse-id" }?.value
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
            let directory = try TemporaryDirectory.create("gateway-kill")
            let apnsKey = P256PrivateKey()
            var fakeConfiguration = FakeAPNs.Configuration()
            fakeConfiguration.credentials = .init(publicKey: apnsKey.publicKey, keyId: "KEYID12345", teamId: "TEAMID1234")
            let fake = try FakeAPNs(configuration: fakeConfiguration)
            var environment = try GatewayHarness.relayEnvironment(fake: fake, apnsKey: apnsKey, directory: directory)
            environment["PUSHGATE_GATEWAY_COALESCE_MS"] = "\(coalesceMs)"
            if let databaseURL { environment["PUSHGATE_RELAY_DATABASE_URL"] = databaseURL }
            let first = try RelayProcess(environment: environment)
            let port = try #require(await onOwnThread { first.port() })
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

        /// SIGKILL to the first relay; returns once it has ended.
        func kill() async throws {
            first.signal(SIGKILL)
            let first = first
            _ = try await onOwnThread { first.exitStatus() }
        }

        /// A second relay on the same database, once the first's rows are free.
        func restart() async throws {
            if let databaseURL { try await GatewayKillNineTests.waitUntilOutboxHoldersEnded(databaseURL) }
            let second = try RelayProcess(environment: environment)
            self.second = second
            _ = try #require(await onOwnThread { second.port() })
        }

        /// Waits (at most 10 s, reading the relay's database) until the outbox rows' attempt
        /// counts, in any order, are `attempts`.
        func waitForOutboxAttempts(_ attempts: [String]) async throws {
            let (path, url) = (directory.appendingPathComponent("relay.sqlite").path, databaseURL)
            try await onOwnThread {
                for _ in 0 ..< 1_000 {
                    let sql = "SELECT attempts FROM push_outbox"
                    let found = if let url {
                        try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: nil)).texts(sql, [])
                    } else {
                        try SQLiteConnection(path: path, access: .readOnly).texts(sql, [])
                    }
                    if found.sorted() == attempts.sorted() { return }
                    usleep(10_000)
                }
                throw POSIXError(.ETIMEDOUT)
            }
        }

        /// SIGTERM to the second relay, which must exit cleanly.
        func stopSecond() async throws {
            let second = try #require(second)
            second.signal(SIGTERM)
            #expect(try await onOwnThread { second.exitStatus() }.status == 0)
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
        try await onOwnThread {
            let connection = try PostgreSQLConnection(url: PostgreSQLURL(url),
                                                      session: .init(writeLockKey: nil, setup: ["SET lock_timeout = '10s'"]))
            for holder in try connection.texts("SELECT DISTINCT holder FROM push_outbox", []).compactMap({ Int64($0) }) {
                try connection.writeTransaction { _ = try connection.texts("SELECT pg_advisory_xact_lock(?1)::text", [.integer(holder)]) }
            }
        }
    }
}
