import Foundation
@testable import PushgateCore
@testable import PushgateRelay
import PushgateStore
import PushgateTestSupport
import PushgateTesting
import Testing

/// The gateway's outbox (docs/gateway.md "Coalescing and delivery") on the manual scheduler: a
/// window that failed for a passing reason tried again after its back-off or `Retry-After`, apart
/// from newer notifications and as first sent, its last retry tried, dropped an hour after
/// acceptance; a failed delete written before the next attempt; windows rebuilt at start-up.
@Suite(.hangLimit(.minutes(1))) struct GatewayOutboxTests {
    /// A host with one session and one iOS phone.
    private static func phone(_ harness: GatewayHarness) async throws -> (session: String, id: String, token: String) {
        let (_, session, ids, tokens) = try await GatewayCoalescingTests.setUp(harness)
        return (session, ids[0], tokens[0])
    }

    /// The outbox rows' `(attempts, due_at)`.
    private static func outbox(_ harness: GatewayHarness) throws -> [(attempts: Int, dueAt: Int64)] {
        try harness.rows("SELECT attempts, due_at FROM push_outbox", columns: 2).map { row in
            (Int(row[0] ?? "") ?? -1, Int64(row[1] ?? "") ?? -1)
        }
    }

    @Test func aPassingFailureIsTriedAgainAfterItsBackOffUntilDelivered() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let (session, id, token) = try await Self.phone(harness)
        harness.fake.script(token: token, sequence: [ScriptedResponse(status: 503, reason: .serviceUnavailable),
                                                     ScriptedResponse(status: 200)])
        #expect(try await harness.send(GatewayHarness.send([id]), session: session) == ["\(id):queued"])
        await harness.advance(byMs: 0)
        let failedAt = harness.clock.nowMilliseconds
        #expect(harness.fake.requests.map(\.status) == [503])
        let row = try #require(try Self.outbox(harness).first)
        #expect(row.attempts == 1)
        #expect((failedAt + 1_000 ... failedAt + 1_500).contains(row.dueAt), "1 s back-off plus up to half as much jitter")
        #expect(harness.gateway.pendingNotifications == 1 && harness.gateway.counter("delivery_error") == 0)

        await harness.advance(byMs: row.dueAt - failedAt - 1)
        #expect(harness.fake.requests.count == 1)
        await harness.advance(byMs: 1)
        #expect(harness.fake.requests.map(\.status) == [503, 200])
        #expect(harness.fake.requests.last?.payload?["orca"]?["coalescedCount"] == 1)
        #expect(try harness.count("SELECT count(*) FROM push_outbox") == 0)
        #expect(harness.gateway.counter("delivery_sent") == 1 && harness.gateway.pendingNotifications == 0)
        let metrics = try await harness.metrics()
        #expect(metrics.contains("pushgate_gateway_delivery_attempts_total{outcome=\"unavailable\"} 1\n"))
        #expect(metrics.contains("pushgate_gateway_delivery_attempts_total{outcome=\"sent\"} 1\n"))
        #expect(metrics.contains("pushgate_gateway_pending_notifications 0\n"))
        await harness.stop()
    }

    @Test func anAndroidDeliveryIsTriedAgainToo() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"], fcm: true)
        let fcm = try #require(harness.fcm)
        let session = try await harness.handshake(try harness.newHost())
        let token = GatewayFCMTests.fcmToken
        let id = try await harness.register(GatewayHarness.device("pixel", token: token, environment: nil, platform: "android"),
                                            session: session)
        fcm.script(token: token, sequence: [FakeFCMScript(.unavailable), FakeFCMScript(nil)])
        _ = try await harness.send(GatewayHarness.send([id]), session: session)
        await harness.advance(byMs: 0)
        #expect(fcm.sends.map(\.status) == [503])
        await harness.advance(byMs: 1_500)
        #expect(fcm.sends.map(\.status) == [503, 200])
        #expect(harness.gateway.deliveryAttempts("unavailable") == 1 && harness.gateway.counter("delivery_sent") == 1)
        #expect(try harness.count("SELECT count(*) FROM push_outbox") == 0)
        await harness.stop()
    }

    /// A throttled window waits for its `Retry-After` apart from what is queued meanwhile, and is
    /// resent as it was first sent, under the same collapse id.
    @Test func aThrottleWaitsForItsRetryAfterAndIsResentAsFirstSent() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let (session, id, token) = try await Self.phone(harness)
        harness.fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 30),
                                                     ScriptedResponse(status: 200)])
        _ = try await harness.send(GatewayHarness.send([id], title: "First"), session: session)
        await harness.advance(byMs: 0)
        #expect(try Self.outbox(harness).map(\.dueAt) == [harness.clock.nowMilliseconds + 30_000], "longer than the back-off")
        _ = try await harness.send(GatewayHarness.send([id], title: "Second"), session: session)
        await harness.advance(byMs: 0)
        #expect(harness.fake.requests.map(\.status) == [429, 200], "the new one goes in a window of its own")
        await harness.advance(byMs: 29_999)
        #expect(harness.fake.requests.count == 2)
        await harness.advance(byMs: 1)
        let requests = harness.fake.requests
        #expect(requests.map(\.status) == [429, 200, 200])
        #expect(requests.map { $0.payload?["aps"]?["alert"]?["title"] } == ["First", "Second", "First"])
        let collapseIds = requests.map { $0.headers.first { $0.name == "apns-collapse-id" }?.value }
        #expect(collapseIds[2] != nil && collapseIds[2] == collapseIds[0], "resent under its first collapse id")
        #expect(harness.gateway.deliveryAttempts("throttled") == 1 && harness.gateway.deliveryAttempts("sent") == 2)
        await harness.stop()
    }

    /// The last retry is due a second before the hour of the window's newest notification ends,
    /// and is tried: here it is delivered.
    @Test func theLastRetryWithinTheHourIsTried() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let (session, id, token) = try await Self.phone(harness)
        harness.fake.script(token: token, ScriptedResponse(status: 503, reason: .serviceUnavailable))
        let acceptedAt = harness.clock.nowMilliseconds
        _ = try await harness.send(GatewayHarness.send([id]), session: session)
        await harness.advance(byMs: 0)
        let lastTry = acceptedAt + 3_600_000 - 1_000
        var dueAt = try #require(try Self.outbox(harness).first?.dueAt)
        while dueAt < lastTry {
            await harness.advance(byMs: dueAt - harness.clock.nowMilliseconds)
            dueAt = try #require(try Self.outbox(harness).first?.dueAt)
        }
        #expect(dueAt == lastTry)
        harness.fake.script(token: token, sequence: [])
        await harness.advance(byMs: dueAt - harness.clock.nowMilliseconds)
        #expect(harness.fake.requests.last?.status == 200)
        #expect(harness.gateway.counter("delivery_sent") == 1 && harness.gateway.counter("delivery_expired") == 0)
        #expect(try harness.count("SELECT count(*) FROM push_outbox") == 0)
        await harness.stop()
    }

    /// A window delivered whose rows could not be deleted (a trigger makes SQLite refuse) keeps
    /// its delete in memory and writes it before the next attempt, so no restart sends it again.
    @Test func aDeleteThatFailedAfterA200IsWrittenBeforeTheNextAttempt() async throws {
        let first = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let (session, id, _) = try await Self.phone(first)
        let admin = try SQLiteConnection(path: first.databasePath)
        try admin.execute("CREATE TRIGGER outbox_delete_fails BEFORE DELETE ON push_outbox BEGIN SELECT RAISE(ABORT, 'injected'); END")
        _ = try await first.send(GatewayHarness.send([id], title: "First"), session: session)
        await first.advance(byMs: 0)
        #expect(first.fake.requests.map(\.status) == [200])
        #expect(try first.count("SELECT count(*) FROM push_outbox") == 1, "the delete failed")
        try admin.execute("DROP TRIGGER outbox_delete_fails")
        _ = try await first.send(GatewayHarness.send([id], title: "Second"), session: session)
        await first.advance(byMs: 0)
        #expect(first.fake.requests.map { $0.payload?["aps"]?["alert"]?["title"] } == ["First", "Second"])
        #expect(try first.count("SELECT count(*) FROM push_outbox") == 0, "written before the second attempt")
        await first.stop(keepingFiles: true)

        let second = try await GatewayHarness(settings: ["COALESCE_MS": "0"], startMs: first.clock.nowMilliseconds,
                                              directory: first.directory)
        await second.advance(byMs: 0)
        #expect(second.fake.requests.isEmpty && second.gateway.openWindows == 0, "nothing sent again")
        await second.stop()
    }

    @Test func aWindowStillFailingAnHourAfterAcceptanceIsDroppedAsExpired() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "3000"])
        let (session, id, token) = try await Self.phone(harness)
        harness.fake.script(token: token, ScriptedResponse(status: 503, reason: .serviceUnavailable))
        let acceptedAt = harness.clock.nowMilliseconds
        _ = try await harness.send(GatewayHarness.send([id], title: "First"), session: session)
        await harness.advance(byMs: 1_000)
        _ = try await harness.send(GatewayHarness.send([id], title: "Second"), session: session)
        // Steps of 5 min, the longest back-off before its jitter: each step runs at most one
        // attempt, and a jitter beyond 5 min skips one.
        while harness.clock.nowMilliseconds < acceptedAt + 3_600_000 + 300_000 {
            await harness.advance(byMs: 300_000)
        }
        let attempts = harness.fake.requests
        #expect(attempts.count >= 8 && attempts.allSatisfy { $0.status == 503 }, "\(attempts.count) attempts")
        #expect(harness.gateway.counter("delivery_expired") == 2)
        #expect(harness.gateway.counter("delivery_error") == 0 && harness.gateway.pendingNotifications == 0)
        #expect(try harness.count("SELECT count(*) FROM push_outbox") == 0)
        #expect(harness.logs.lines.contains { $0.contains("undelivered an hour after acceptance") })
        await harness.stop()
    }

    /// The start of the relays that find rows left behind (below), and their host.
    private static let t0: Int64 = 1_764_669_600_000
    private static let host = "MAyclgO5Kks57TlY"

    /// A relay database in a fresh directory, to write the rows a relay that ended left behind as
    /// a relay writes them: ``host`` with one iOS phone per token, registrations `r0`, `r1`, ….
    private static func databaseLeftBehind(tokens: [String]) async throws -> (directory: URL, store: SQLiteGatewayStore) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)")
        let store = try await SQLiteGatewayStore.open(path: directory.appendingPathComponent("relay.sqlite").path)
        for (index, token) in tokens.enumerated() {
            _ = try await store.registerDevice(GatewayDeviceRegistration(hostFingerprint: host, deviceId: "d\(index)", platform: "ios",
                                                                         token: token, apnsEnvironment: "sandbox", filterJSON: "{}"),
                                               newRegistrationId: "r\(index)", nowMs: t0 - 7_200_000)
        }
        return (directory, store)
    }

    /// Queues a notification titled `title` (its notification id too) for registration `id`, as
    /// `POST /v1/send` does; its send id.
    private static func queue(_ id: String, in store: SQLiteGatewayStore, at acceptedAt: Int64, dueAt: Int64,
                              title: String) async throws -> String {
        let note = GatewayNotification(notificationId: title, notificationSeq: 1, notificationEpoch: "epoch-1",
                                       source: "agent-task-complete", agentState: "needs-input", title: title, body: "",
                                       worktreeId: nil)
        let admissions = try await store.admitSends(hostFingerprint: host, registrationIds: [id], notification: note,
                                                    nowMs: acceptedAt, dueAt: dueAt)
        guard case .admitted(let sendId)? = admissions.first else { throw HarnessFailure("not admitted: \(admissions)") }
        return sendId
    }

    @Test func windowsAreRebuiltFromTheOutboxAtStartUp() async throws {
        let t0 = Self.t0
        let tokens = (0 ..< 4).map { _ in Hex.encode(SecureRandom.bytes(32)) }
        let (directory, store) = try await Self.databaseLeftBehind(tokens: tokens)
        func queue(_ id: String, at acceptedAt: Int64, dueAt: Int64, title: String) async throws -> String {
            try await Self.queue(id, in: store, at: acceptedAt, dueAt: dueAt, title: title)
        }
        // r0: one window of two, due 2 s after the start; r1: due before it, so at once; r2: waiting
        // for its fourth attempt, 4 s after the start; r3: accepted over an hour ago.
        _ = try await queue("r0", at: t0 - 1_000, dueAt: t0 + 2_000, title: "r0-first")
        _ = try await queue("r0", at: t0 - 500, dueAt: t0 + 2_500, title: "r0-second")
        _ = try await queue("r1", at: t0 - 5_000, dueAt: t0 - 2_000, title: "r1")
        let waiting = try await queue("r2", at: t0 - 60_000, dueAt: t0 - 57_000, title: "r2")
        try await store.postponeOutbox(sendIds: [waiting], attempts: 3, dueAt: t0 + 4_000)
        _ = try await queue("r3", at: t0 - 3_600_001, dueAt: t0 - 3_597_001, title: "r3")
        await store.close()

        let harness = try await GatewayHarness(startMs: t0, directory: directory)
        #expect(harness.gateway.openWindows == 4 && harness.gateway.pendingNotifications == 5)
        await harness.advance(byMs: 0)
        #expect(harness.fake.requests.map(\.deviceToken) == [tokens[1]])
        #expect(harness.gateway.counter("delivery_expired") == 1, "r3")
        await harness.advance(byMs: 1_999)
        #expect(harness.fake.requests.count == 1)
        await harness.advance(byMs: 1)
        let summary = try #require(harness.fake.requests.last)
        #expect(summary.deviceToken == tokens[0])
        #expect(summary.payload?["aps"]?["alert"] == ["title": "Orca", "body": "2 agents need attention"])
        #expect(summary.payload?["orca"]?["notificationId"] == "r0-second")
        await harness.advance(byMs: 2_000)
        #expect(harness.fake.requests.map(\.deviceToken) == [tokens[1], tokens[0], tokens[2]])
        #expect(try harness.count("SELECT count(*) FROM push_outbox") == 0)
        #expect(harness.logs.lines.contains { $0.contains("windows taken over") })
        await harness.stop()
    }

    /// A window sent and throttled, and newer notifications for the same phone still collecting,
    /// as a relay killed meanwhile leaves them (GatewayKillNineTests, where the host's timing
    /// decides whether the new ones are still collecting at the kill): they come back apart, the
    /// new ones as a summary of their own at their due time, the sent one alone at its retry time,
    /// as first sent.
    @Test func aSentWindowAndNewerNotificationsForItsPhoneComeBackApartAtStartUp() async throws {
        let t0 = Self.t0
        let token = Hex.encode(SecureRandom.bytes(32))
        let (directory, store) = try await Self.databaseLeftBehind(tokens: [token])
        let sent = try await Self.queue("r0", in: store, at: t0 - 5_000, dueAt: t0 - 4_800, title: "note-1")
        #expect(try await store.claimOutbox(sendIds: [sent], windowId: sent) == [sent])
        try await store.postponeOutbox(sendIds: [sent], attempts: 1, dueAt: t0 + 25_000)
        _ = try await Self.queue("r0", in: store, at: t0 - 1_000, dueAt: t0 + 2_000, title: "note-2")
        _ = try await Self.queue("r0", in: store, at: t0 - 500, dueAt: t0 + 2_500, title: "note-3")
        await store.close()

        let harness = try await GatewayHarness(startMs: t0, directory: directory)
        #expect(harness.gateway.openWindows == 2 && harness.gateway.pendingNotifications == 3)
        await harness.advance(byMs: 1_999)
        #expect(harness.fake.requests.isEmpty)
        await harness.advance(byMs: 1)
        let summary = try #require(harness.fake.requests.last)
        #expect(harness.fake.requests.count == 1 && summary.deviceToken == token)
        #expect(summary.payload?["aps"]?["alert"] == ["title": "Orca", "body": "2 agents need attention"])
        #expect(summary.payload?["orca"]?["notificationId"] == "note-3" && summary.payload?["orca"]?["coalescedCount"] == 2)
        await harness.advance(byMs: 25_000 - 2_000 - 1)
        #expect(harness.fake.requests.count == 1, "the sent window keeps its retry time")
        await harness.advance(byMs: 1)
        let resent = try #require(harness.fake.requests.last)
        #expect(harness.fake.requests.count == 2 && resent.deviceToken == token)
        #expect(resent.payload?["aps"]?["alert"]?["title"] == "note-1" && resent.payload?["orca"]?["coalescedCount"] == 1)
        #expect(resent.headers.first { $0.name == "apns-collapse-id" }?.value == "note-1")
        #expect(try harness.count("SELECT count(*) FROM push_outbox") == 0)
        await harness.stop()
    }

    @Test func aWindowWaitingForItsRetryAtShutdownResumesAfterTheRestart() async throws {
        let first = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let (session, id, token) = try await Self.phone(first)
        first.fake.script(token: token, ScriptedResponse(status: 503, reason: .serviceUnavailable))
        _ = try await first.send(GatewayHarness.send([id]), session: session)
        await first.advance(byMs: 0)
        let row = try #require(try Self.outbox(first).first)
        #expect(row.attempts == 1)
        await first.stop(keepingFiles: true)
        #expect(first.fake.requests.count == 1, "shutdown leaves a window waiting for its retry to the table")
        #expect(try Self.outbox(first).map(\.attempts) == [1])

        let second = try await GatewayHarness(settings: ["COALESCE_MS": "0"], startMs: first.clock.nowMilliseconds,
                                              directory: first.directory)
        #expect(second.gateway.pendingNotifications == 1)
        await second.advance(byMs: row.dueAt - second.clock.nowMilliseconds - 1)
        #expect(second.fake.requests.isEmpty, "the retry keeps its time across the restart")
        await second.advance(byMs: 1)
        #expect(second.fake.requests.map(\.deviceToken) == [token])
        #expect(try second.count("SELECT count(*) FROM push_outbox") == 0)
        await second.stop()
    }
}
