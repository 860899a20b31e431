import PushgateTesting
import Testing
@testable import PushgateStore
import PushgateTestSupport

/// What only the PostgreSQL gateway store does: its per-host advisory locks and connections the
/// server dropped. The shared rules, also across two stores, are in ``GatewayStoreContractTests``.
@Suite(.hangLimit(.minutes(1))) struct GatewayPostgreSQLStoreTests {
    private let t0: Int64 = 1_764_669_600_000
    private static let host = "MAyclgO5Kks57TlY"
    private static let note = GatewayNotification(notificationId: nil, notificationSeq: 1, notificationEpoch: "epoch-1", source: "plugin",
                                                  agentState: nil, title: "Done", body: "", worktreeId: nil)

    /// A store on `url` with one phone, `r1`, and one notification queued for it; its send id.
    private func storeWithAQueuedNotification(_ url: String) async throws -> (any GatewayStore, String) {
        let store = try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(url), connections: 2)
        let phone = GatewayDeviceRegistration(hostFingerprint: Self.host, deviceId: "phone", platform: "ios", token: "token-1",
                                              apnsEnvironment: "sandbox", filterJSON: "{}")
        _ = try await store.registerDevice(phone, newRegistrationId: "r1", nowMs: t0)
        let admissions = try await store.admitSends(hostFingerprint: Self.host, registrationIds: ["r1"], notification: Self.note,
                                                    nowMs: t0, dueAt: t0 + 3_000)
        return (store, try #require(admissions.first?.sendId))
    }

    /// Ends every gateway store session on `url`'s database (as a server restart does); one
    /// `"true"` per session.
    private func terminateGatewaySessions(_ url: String) async throws -> [String] {
        try await onOwnThread {
            let admin = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: nil))
            return try admin.texts("""
                SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                WHERE application_name = ?1 AND datname = current_database()
                """, [.text(PostgreSQLGatewayStore.applicationName)])
        }
    }

    @Test func aHostLockIsTheAdvisoryLockOfItsScopeAndFingerprintUntilCommit() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(url)).close()
        let (held, otherHost, otherScope, afterCommit) = try await onOwnThread {
            let session = PostgreSQLConnection.Session(writeLockKey: nil)
            let (holder, prober) = (try PostgreSQLConnection(url: PostgreSQLURL(url), session: session),
                                    try PostgreSQLConnection(url: PostgreSQLURL(url), session: session))
            // Outside a transaction the try-lock would be released again at once.
            func free(_ name: String) throws -> Bool {
                try prober.texts("SELECT pg_try_advisory_xact_lock(hashtext(?1))::text", [.text(name)]) == ["true"]
            }
            let during = try holder.writeTransaction {
                try holder.lock(.devices, host: "MAyclgO5Kks57TlY")
                return (try free("push-devices:MAyclgO5Kks57TlY"), try free("push-devices:Zmh6rfhivXdsj8GL"),
                        try free("push-send-quota:MAyclgO5Kks57TlY"))
            }
            return (!during.0, during.1, during.2, try free("push-devices:MAyclgO5Kks57TlY"))
        }
        #expect(held, "another session cannot take the host's lock meanwhile")
        #expect(otherHost && otherScope, "other hosts and scopes do not wait")
        #expect(afterCommit)
    }

    @Test func storeConnectionsTheServerDroppedAreReplaced() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let store = try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(url), connections: 2)
        let phone = GatewayDeviceRegistration(hostFingerprint: "MAyclgO5Kks57TlY", deviceId: "phone", platform: "ios",
                                              token: "token-1", apnsEnvironment: "sandbox", filterJSON: "{}")
        #expect(try await store.registerDevice(phone, newRegistrationId: "r1", nowMs: t0) == .registered(registrationId: "r1"))
        let terminated = try await terminateGatewaySessions(url)
        #expect(terminated == ["true", "true"])
        // Each connection in turn: a write (BEGIN is sent again) and a read.
        for index in 0 ..< 2 {
            let admissions = try await store.admitSends(hostFingerprint: "MAyclgO5Kks57TlY", registrationIds: ["r1"],
                                                        notification: Self.note, nowMs: t0, dueAt: t0)
            #expect(admissions.map { $0.sendId != nil } == [true], "write \(index)")
        }
        #expect(try await store.device(registrationId: "r1")?.token == "token-1")
        #expect(try await store.devices(hostFingerprint: "MAyclgO5Kks57TlY").count == 1)
        await store.close()
    }

    /// The outbox belongs to a relay for as long as one of its sessions lives: another relay
    /// takes nothing over meanwhile, not even while its sessions were dropped and came back.
    @Test func aRunningStoreKeepsItsOutboxRowsFromOtherStores() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let (first, _) = try await storeWithAQueuedNotification(url)
        let second = try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(url), connections: 1)
        #expect(try await second.adoptOutbox() == [])
        let terminated = try await terminateGatewaySessions(url)
        #expect(terminated.count == 3)
        // Each store's next call reconnects, and its session takes the holder's lock again.
        #expect(try await first.device(registrationId: "r1") != nil)
        #expect(try await second.adoptOutbox() == [], "the first store's reconnected session holds its rows")
        try await first.close()
        let database = StoreDatabase(engine: .postgreSQL, location: url, directory: nil)
        try await database.waitUntilOutboxHoldersEnded()
        #expect(try await second.adoptOutbox().map(\.registrationId) == ["r1"])
        await second.close()
    }

    /// Stores racing for the rows of one that ended take each row once.
    @Test func storesRacingForAnEndedStoresRowsTakeEachOnce() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let (first, sendId) = try await storeWithAQueuedNotification(url)
        try await first.close()
        try await StoreDatabase(engine: .postgreSQL, location: url, directory: nil).waitUntilOutboxHoldersEnded()
        var stores: [any GatewayStore] = []
        for _ in 0 ..< 4 { stores.append(try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(url), connections: 1)) }
        let adopted = try await withThrowingTaskGroup(of: [GatewayOutboxRow].self) { group in
            for store in stores { group.addTask { try await store.adoptOutbox() } }
            return try await group.reduce(into: [GatewayOutboxRow]()) { $0 += $1 }
        }
        #expect(adopted.map(\.queued.sendId) == [sendId])
        for store in stores { try await store.close() }
    }

    /// A store whose sessions were dropped holds no holder lock until its next call, so another
    /// store may take its rows over before it reconnects. The first store's claim then returns
    /// nothing and its delete and postpone leave the rows alone: only the new holder sends.
    @Test func aStoreWhoseRowsWereTakenOverBeforeItReconnectedSendsNothing() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let (first, sendId) = try await storeWithAQueuedNotification(url)
        let second = try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(url), connections: 1)
        #expect(try await terminateGatewaySessions(url).count == 3)
        let database = StoreDatabase(engine: .postgreSQL, location: url, directory: nil)
        try await database.waitUntilOutboxHoldersEnded()
        // No call of the first store comes between: its sessions are gone, and so is its lock.
        #expect(try await second.adoptOutbox().map(\.queued.sendId) == [sendId])
        #expect(try await first.claimOutbox(sendIds: [sendId], windowId: sendId) == [], "fenced: not sent by the first")
        try await first.postponeOutbox(sendIds: [sendId], attempts: 1, dueAt: t0 + 9_000)
        try await first.deleteOutbox(sendIds: [sendId])
        #expect(try await second.claimOutbox(sendIds: [sendId], windowId: sendId) == [sendId], "sent by the second")
        #expect(try await database.count("SELECT count(*) FROM push_outbox WHERE attempts = 0") == 1, "untouched by the first")
        try await first.close()
        await second.close()
    }
}
