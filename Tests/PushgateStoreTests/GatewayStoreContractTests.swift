import Testing
@testable import PushgateStore

/// The gateway's storage rules (protocol/gateway.md §2, §3, §5, §8) and the store's guarantees,
/// checked on every ``StoreEngine``; the concurrent cases also with two stores (two relay
/// instances) on one database.
@Suite struct GatewayStoreContractTests {
    private let t0: Int64 = 1_764_669_600_000
    private let host = "MAyclgO5Kks57TlY"
    private let otherHost = "Zmh6rfhivXdsj8GL"
    /// No ceiling and an endless budget: the growth guards out of the way.
    private static let anyNewHost = GatewayNewHostRule(maxHosts: .max) { true }

    private func challenge(_ id: String, host: String? = nil, secretHash: String = "expected-proof-hash",
                           expiresAt: Int64? = nil) -> GatewayChallengeRecord {
        GatewayChallengeRecord(challengeId: id, hostFingerprint: host ?? self.host, hostPublicKeyB64: "key-of-\(host ?? self.host)",
                               secretHash: secretHash, transcriptB64: nil, expiresAt: expiresAt ?? t0 + 10_000)
    }

    private func phone(_ deviceId: String, host: String? = nil, token: String = "token-1",
                       platform: String = "ios") -> GatewayDeviceRegistration {
        GatewayDeviceRegistration(hostFingerprint: host ?? self.host, deviceId: deviceId, platform: platform, token: token,
                                  apnsEnvironment: platform == "ios" ? "sandbox" : nil,
                                  filterJSON: #"{"sources":[],"agentStates":[]}"#)
    }

    /// Registers `deviceId` of `host` under `id`; fails the test on another outcome.
    private func register(_ store: any GatewayStore, _ deviceId: String, id: String, host: String? = nil,
                          nowMs: Int64? = nil) async throws {
        let outcome = try await store.registerDevice(phone(deviceId, host: host), newRegistrationId: id, nowMs: nowMs ?? t0)
        #expect(outcome == .registered(registrationId: id))
    }

    /// What a host sends in the admission tests.
    private static let note = GatewayNotification(notificationId: "note-1", notificationSeq: 7, notificationEpoch: "epoch-1",
                                                  source: "agent-task-complete", agentState: "needs-input",
                                                  title: "Agent needs input", body: "Waiting on your answer", worktreeId: nil)
    /// An admission whatever its send id (``verdicts(_:)``).
    private static let admitted = GatewaySendAdmission.admitted(sendId: "")

    /// The admissions with their send ids blanked, so they compare with ``admitted``.
    private static func verdicts(_ admissions: [GatewaySendAdmission]) -> [GatewaySendAdmission] {
        admissions.map { if case .admitted = $0 { admitted } else { $0 } }
    }

    /// Admits ``note`` for `ids` of `host` (this suite's host by default) at `nowMs`, due 3 s later;
    /// the verdicts (``verdicts(_:)``).
    private func admit(_ store: any GatewayStore, _ ids: [String], host: String? = nil,
                       at nowMs: Int64) async throws -> [GatewaySendAdmission] {
        Self.verdicts(try await store.admitSends(hostFingerprint: host ?? self.host, registrationIds: ids, notification: Self.note,
                                                 nowMs: nowMs, dueAt: nowMs + 3_000))
    }

    // MARK: - Challenges and sessions (§2.2, §2.8)

    @Test(arguments: StoreEngine.allCases)
    func aChallengeIsRedeemedOnceWithTheRightProofUntilItsExpiry(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            let expiresAt = t0 + 10_000
            try await store.insertChallenge(challenge("c1", expiresAt: expiresAt))
            func redeem(_ id: String, _ proofHash: String?, at nowMs: Int64, session: String = "session-1") async throws -> ChallengeRedemption {
                try await store.redeemChallenge(id: id, proofHash: proofHash, nowMs: nowMs, sessionTokenHash: session,
                                                sessionExpiresAt: nowMs + 86_400_000, newHost: Self.anyNewHost)
            }
            #expect(try await redeem("unknown", "expected-proof-hash", at: t0) == .unknownChallenge)
            #expect(try await redeem("c1", "another-proof-hash", at: t0) == .refused)
            #expect(try await redeem("c1", nil, at: t0) == .refused, "a non-canonical proof")
            #expect(try await redeem("c1", "expected-proof-hash", at: expiresAt + 1) == .refused)
            #expect(try await database.count("SELECT count(*) FROM push_hosts") == 0, "refusals change nothing")
            #expect(try await redeem("c1", "expected-proof-hash", at: expiresAt) == .redeemed(hostFingerprint: host))
            #expect(try await redeem("c1", "expected-proof-hash", at: expiresAt) == .refused, "consumed")
            #expect(try await store.session(tokenHash: "session-1") == GatewaySessionRecord(hostFingerprint: host,
                                                                                             expiresAt: expiresAt + 86_400_000))
            #expect(try await store.session(tokenHash: "session-2") == nil)
            let host = host
            let hostRow = try await database.withConnection { connection in
                try connection.texts("SELECT host_public_key || ' ' || created_at || ' ' || last_seen_at FROM push_hosts WHERE host_fingerprint = ?1",
                                     [.text(host)])
            }
            #expect(hostRow == ["key-of-\(host) \(expiresAt) \(expiresAt)"])
            #expect(try await database.count("SELECT count(*) FROM push_challenges WHERE consumed_at = \(expiresAt)") == 1)

            // A second session for the host replaces the first; the host row keeps its creation time.
            try await store.insertChallenge(challenge("c2", expiresAt: t0 + 70_000))
            #expect(try await redeem("c2", "expected-proof-hash", at: t0 + 60_000, session: "session-2") == .redeemed(hostFingerprint: host))
            #expect(try await store.session(tokenHash: "session-1") == nil)
            #expect(try await store.session(tokenHash: "session-2")?.hostFingerprint == host)
            let seen = try await database.withConnection { connection in
                try connection.texts("SELECT created_at || ' ' || last_seen_at FROM push_hosts", [])
            }
            #expect(seen == ["\(expiresAt) \(t0 + 60_000)"])
        }
    }

    @Test(arguments: StoreEngine.allCases, [1, 2])
    func concurrentCorrectAnswersRedeemAChallengeOnce(engine: StoreEngine, instances: Int) async throws {
        let database = try await engine.makeDatabase()
        try await database.withGatewayStores(instances) { stores in
            try await stores[0].insertChallenge(challenge("c1"))
            let outcomes = try await withThrowingTaskGroup(of: ChallengeRedemption.self) { group in
                for index in 0 ..< 8 {
                    let store = stores[index % instances]
                    group.addTask {
                        try await store.redeemChallenge(id: "c1", proofHash: "expected-proof-hash", nowMs: self.t0,
                                                        sessionTokenHash: "session-\(index)", sessionExpiresAt: self.t0 + 86_400_000,
                                                        newHost: Self.anyNewHost)
                    }
                }
                return try await group.reduce(into: [ChallengeRedemption]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .redeemed(hostFingerprint: host) }.count == 1)
            #expect(outcomes.filter { $0 == .refused }.count == 7)
            #expect(try await database.count("SELECT count(*) FROM push_sessions") == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases, [1, 2])
    func aHostKeepsOneSessionWhenTwoChallengesAreAnsweredAtOnce(engine: StoreEngine, instances: Int) async throws {
        let database = try await engine.makeDatabase()
        try await database.withGatewayStores(instances) { stores in
            for index in 0 ..< 8 { try await stores[0].insertChallenge(challenge("c\(index)")) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0 ..< 8 {
                    let store = stores[index % instances]
                    group.addTask {
                        let outcome = try await store.redeemChallenge(id: "c\(index)", proofHash: "expected-proof-hash", nowMs: self.t0,
                                                                      sessionTokenHash: "session-\(index)",
                                                                      sessionExpiresAt: self.t0 + 86_400_000, newHost: Self.anyNewHost)
                        #expect(outcome == .redeemed(hostFingerprint: self.host))
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await database.count("SELECT count(*) FROM push_sessions") == 1)
        }
    }

    // MARK: - Devices (§3)

    @Test(arguments: StoreEngine.allCases)
    func devicesRegisterUpdateListAndDelete(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, _ throws in
            // Ids sort the other way round from registration, so the list order cannot come from them.
            try await register(store, "a", id: "zz-first")
            try await register(store, "b", id: "mm-second", nowMs: t0 + 5)
            let android = phone("c", token: "fcm-token", platform: "android")
            #expect(try await store.registerDevice(android, newRegistrationId: "aa-third", nowMs: t0 + 5) == .registered(registrationId: "aa-third"))
            #expect(try await store.devices(hostFingerprint: host) == [
                GatewayDeviceSummary(registrationId: "zz-first", deviceId: "a", platform: "ios", dead: false),
                GatewayDeviceSummary(registrationId: "mm-second", deviceId: "b", platform: "ios", dead: false),
                GatewayDeviceSummary(registrationId: "aa-third", deviceId: "c", platform: "android", dead: false),
            ])
            #expect(try await store.devices(hostFingerprint: otherHost) == [])
            #expect(try await store.device(registrationId: "aa-third") == GatewayDevice(
                registrationId: "aa-third", hostFingerprint: host, platform: "android", token: "fcm-token", apnsEnvironment: nil, dead: false))

            // A re-registration keeps the id and takes the new values.
            var renewed = phone("a", token: "token-2")
            renewed.apnsEnvironment = "production"
            #expect(try await store.registerDevice(renewed, newRegistrationId: "unused", nowMs: t0 + 9) == .registered(registrationId: "zz-first"))
            #expect(try await store.device(registrationId: "zz-first") == GatewayDevice(
                registrationId: "zz-first", hostFingerprint: host, platform: "ios", token: "token-2", apnsEnvironment: "production", dead: false))

            // Deletion belongs to the owner.
            #expect(try await !store.deleteDevice(registrationId: "zz-first", hostFingerprint: otherHost))
            #expect(try await !store.deleteDevice(registrationId: "unknown", hostFingerprint: host))
            #expect(try await store.deleteDevice(registrationId: "zz-first", hostFingerprint: host))
            #expect(try await !store.deleteDevice(registrationId: "zz-first", hostFingerprint: host))
            #expect(try await store.device(registrationId: "zz-first") == nil)
            #expect(try await store.devices(hostFingerprint: host).map(\.registrationId) == ["mm-second", "aa-third"])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aDeadMarkNeedsTheSameTokenAndAReRegistrationClearsIt(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, _ throws in
            try await register(store, "a", id: "r1")
            try await store.markDead(registrationId: "r1", token: "another-token", nowMs: t0 + 1)
            #expect(try await store.device(registrationId: "r1")?.dead == false, "re-registered with another token since")
            try await store.markDead(registrationId: "r1", token: "token-1", nowMs: t0 + 1)
            #expect(try await store.device(registrationId: "r1")?.dead == true)
            #expect(try await store.devices(hostFingerprint: host).map(\.dead) == [true])
            #expect(try await admit(store, ["r1"], at: t0 + 2) == [.dead])
            try await register(store, "a", id: "r1", nowMs: t0 + 3)
            #expect(try await store.device(registrationId: "r1")?.dead == false)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func sixtyFourDevicesPerHost(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, _ throws in
            for index in 0 ..< 64 { try await register(store, "phone-\(index)", id: "r\(index)") }
            #expect(try await store.registerDevice(phone("phone-64"), newRegistrationId: "r64", nowMs: t0) == .tooManyDevices)
            try await register(store, "phone-7", id: "r7")
            try await register(store, "phone-0", id: "other-0", host: otherHost)
            #expect(try await store.deleteDevice(registrationId: "r0", hostFingerprint: host))
            try await register(store, "phone-64", id: "r64")
            #expect(try await store.devices(hostFingerprint: host).count == 64)
        }
    }

    @Test(arguments: StoreEngine.allCases, [1, 2])
    func eightyConcurrentNewDevicesOfOneHostLeaveExactlySixtyFour(engine: StoreEngine, instances: Int) async throws {
        let database = try await engine.makeDatabase()
        try await database.withGatewayStores(instances) { stores in
            let outcomes = try await withThrowingTaskGroup(of: GatewayDeviceOutcome.self) { group in
                for index in 0 ..< 80 {
                    let (store, registration) = (stores[index % instances], phone("new-\(index)"))
                    group.addTask { try await store.registerDevice(registration, newRegistrationId: "r\(index)", nowMs: self.t0) }
                }
                return try await group.reduce(into: [GatewayDeviceOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .tooManyDevices }.count == 16)
            #expect(try await database.count("SELECT count(*) FROM push_devices") == 64)
        }
    }

    // MARK: - Send admissions and quotas (§4, §5)

    @Test(arguments: StoreEngine.allCases)
    func admissionsFollowTheOrderOfTheRulesAndChargeOnlyWhatIsQueued(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            try await register(store, "mine", id: "own")
            try await register(store, "dead", id: "gone")
            try await register(store, "theirs", id: "foreign", host: otherHost)
            try await store.markDead(registrationId: "gone", token: "token-1", nowMs: t0)
            let admissions = try await admit(store, ["unknown", "foreign", "own", "gone"], at: t0)
            #expect(admissions == [.notOwned, .notOwned, Self.admitted, .dead])
            let host = host
            let logged = try await database.withConnection { connection in
                try connection.texts("SELECT registration_id || ' ' || sent_at FROM push_send_log WHERE host_fingerprint = ?1", [.text(host)])
            }
            #expect(logged == ["own \(t0)"])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func sixtySendsPerHostInARollingHour(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            for index in 0 ..< 3 { try await register(store, "phone-\(index)", id: "r\(index)") }
            try await register(store, "phone-0", id: "other", host: otherHost)
            // One notification to three phones uses three of the 60.
            #expect(try await admit(store, ["r0", "r1", "r2"], at: t0) == [Self.admitted, Self.admitted, Self.admitted])
            for index in 3 ..< 60 {
                #expect(try await admit(store, ["r\(index % 3)"], at: t0 + Int64(index)) == [Self.admitted])
            }
            #expect(try await admit(store, ["r0"], at: t0 + 3_599_999) == [.rateLimited])
            #expect(try await admit(store, ["other"], host: otherHost, at: t0 + 100) == [Self.admitted])
            #expect(try await database.count("SELECT count(*) FROM push_send_log") == 61, "a refusal is not logged")
            // The first three stop counting exactly one hour later.
            let later = try await admit(store, ["r0", "r1", "r2", "r0"], at: t0 + 3_600_000)
            #expect(later == [Self.admitted, Self.admitted, Self.admitted, .rateLimited])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func twoHundredSendsPerRegistrationInARollingDay(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, _ throws in
            try await register(store, "phone-0", id: "r0")
            try await register(store, "phone-1", id: "r1")
            // 61 s apart: at most 59 in any hour, so the host quota never binds.
            for index in 0 ..< 200 {
                #expect(try await admit(store, ["r0"], at: t0 + Int64(index) * 61_000) == [Self.admitted])
            }
            let next = t0 + 200 * 61_000
            #expect(try await admit(store, ["r0", "r1"], at: next) == [.rateLimited, Self.admitted])
            #expect(try await admit(store, ["r0"], at: t0 + 86_399_999) == [.rateLimited])
            #expect(try await admit(store, ["r0"], at: t0 + 86_400_000) == [Self.admitted])
        }
    }

    @Test(arguments: StoreEngine.allCases, [1, 2])
    func aHundredConcurrentSendsOfOneHostQueueExactlySixty(engine: StoreEngine, instances: Int) async throws {
        let database = try await engine.makeDatabase()
        try await database.withGatewayStores(instances) { stores in
            for index in 0 ..< 4 { try await register(stores[0], "phone-\(index)", id: "r\(index)") }
            let admissions = try await withThrowingTaskGroup(of: [GatewaySendAdmission].self) { group in
                for index in 0 ..< 100 {
                    let store = stores[index % instances]
                    group.addTask { try await self.admit(store, ["r\(index % 4)"], at: self.t0) }
                }
                return try await group.reduce(into: [GatewaySendAdmission]()) { $0 += $1 }
            }
            #expect(admissions.filter { $0 == Self.admitted }.count == 60)
            #expect(admissions.filter { $0 == .rateLimited }.count == 40)
            #expect(try await database.count("SELECT count(*) FROM push_send_log") == 60)
            #expect(try await database.count("SELECT count(*) FROM push_outbox") == 60)
        }
    }

    // MARK: - The outbox (docs/gateway.md "Coalescing and delivery")

    @Test(arguments: StoreEngine.allCases)
    func anAdmittedSendIsQueuedInTheOutboxUnderItsSendLogId(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            try await register(store, "mine", id: "own")
            try await register(store, "dead", id: "gone")
            try await store.markDead(registrationId: "gone", token: "token-1", nowMs: t0)
            let admissions = try await store.admitSends(hostFingerprint: host, registrationIds: ["own", "gone", "unknown"],
                                                        notification: Self.note, nowMs: t0, dueAt: t0 + 3_000)
            let sendId = try #require(admissions.first?.sendId)
            #expect(Array(admissions.dropFirst()) == [.dead, .notOwned])
            let (queued, logged) = try await database.withConnection { connection in
                (try connection.texts("""
                    SELECT send_id || ' ' || registration_id || ' ' || host_fingerprint || ' ' || accepted_at || ' ' || due_at
                        || ' ' || attempts || ' ' || title FROM push_outbox
                    """, []), try connection.texts("SELECT send_id FROM push_send_log", []))
            }
            #expect(queued == ["\(sendId) own \(host) \(t0) \(t0 + 3_000) 0 Agent needs input"])
            #expect(logged == [sendId])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theNextStoreTakesOverTheOutboxOfOneThatClosedOnce(engine: StoreEngine) async throws {
        let database = try await engine.makeDatabase()
        let first = try await database.openGateway()
        try await register(first, "a", id: "r1")
        try await register(first, "b", id: "r2")
        let quiet = GatewayNotification(notificationId: nil, notificationSeq: 8, notificationEpoch: "epoch-1", source: "terminal-bell",
                                        agentState: nil, title: "Bell", body: "", worktreeId: "wt-1")
        let both = try await first.admitSends(hostFingerprint: host, registrationIds: ["r1", "r2"], notification: Self.note,
                                              nowMs: t0, dueAt: t0 + 3_000).compactMap(\.sendId)
        let later = try await first.admitSends(hostFingerprint: host, registrationIds: ["r1"], notification: quiet, nowMs: t0 + 1,
                                               dueAt: t0 + 3_001).compactMap(\.sendId)
        let gone = try await first.admitSends(hostFingerprint: host, registrationIds: ["r2"], notification: quiet, nowMs: t0 + 2,
                                              dueAt: t0 + 3_002).compactMap(\.sendId)
        try #require(both.count == 2 && later.count == 1 && gone.count == 1)
        #expect(try await first.claimOutbox(sendIds: [both[1]], windowId: both[1]) == [both[1]])
        try await first.postponeOutbox(sendIds: [both[1]], attempts: 2, dueAt: t0 + 9_000)
        try await first.deleteOutbox(sendIds: gone)
        #expect(try await first.adoptOutbox() == [], "a store's own rows are not taken over")
        try await first.close()
        try await database.waitUntilOutboxHoldersEnded()

        try await database.withGatewayStores(1) { stores in
            func row(_ id: String, _ sendId: String, at acceptedAt: Int64, _ note: GatewayNotification, attempts: Int = 0,
                     dueAt: Int64, windowId: String? = nil) -> GatewayOutboxRow {
                GatewayOutboxRow(registrationId: id, hostFingerprint: host,
                                 queued: GatewayQueuedNotification(sendId: sendId, acceptedAt: acceptedAt, notification: note),
                                 attempts: attempts, dueAt: dueAt, windowId: windowId)
            }
            // Oldest first; the same millisecond in the order queued.
            #expect(try await stores[0].adoptOutbox() == [
                row("r1", both[0], at: t0, Self.note, dueAt: t0 + 3_000),
                row("r2", both[1], at: t0, Self.note, attempts: 2, dueAt: t0 + 9_000, windowId: both[1]),
                row("r1", later[0], at: t0 + 1, quiet, dueAt: t0 + 3_001),
            ])
            #expect(try await stores[0].adoptOutbox() == [], "taken over once")
            try await stores[0].deleteOutbox(sendIds: both)
            #expect(try await database.count("SELECT count(*) FROM push_outbox") == 1)
        }
    }

    // MARK: - Growth (docs/gateway.md "Growth")

    @Test(arguments: StoreEngine.allCases, [1, 2])
    func newHostsStopAtTheCeilingWhileKnownHostsKeepOpeningSessions(engine: StoreEngine, instances: Int) async throws {
        let database = try await engine.makeDatabase()
        try await database.withGatewayStores(instances) { stores in
            let full = GatewayNewHostRule(maxHosts: 3) { true }
            for index in 0 ..< 6 { try await stores[0].insertChallenge(challenge("new-\(index)", host: "host-\(index)")) }
            let outcomes = try await withThrowingTaskGroup(of: ChallengeRedemption.self) { group in
                for index in 0 ..< 6 {
                    let store = stores[index % instances]
                    group.addTask {
                        try await store.redeemChallenge(id: "new-\(index)", proofHash: "expected-proof-hash", nowMs: self.t0,
                                                        sessionTokenHash: "session-\(index)", sessionExpiresAt: self.t0 + 86_400_000,
                                                        newHost: full)
                    }
                }
                return try await group.reduce(into: [ChallengeRedemption]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .hostLimit }.count == 3, "\(outcomes)")
            #expect(try await database.count("SELECT count(*) FROM push_hosts") == 3)
            #expect(try await database.count("SELECT count(*) FROM push_challenges WHERE consumed_at IS NULL") == 3,
                    "a refused challenge is not consumed")

            // A stored host opens its next session at the ceiling, and spends no budget doing so.
            let known = try await database.withConnection { try $0.texts("SELECT host_fingerprint FROM push_hosts", []) }[0]
            try await stores[0].insertChallenge(challenge("again", host: known))
            let noBudget = GatewayNewHostRule(maxHosts: 3) {
                Issue.record("a known host spent the budget")
                return false
            }
            #expect(try await stores[instances - 1].redeemChallenge(id: "again", proofHash: "expected-proof-hash", nowMs: t0 + 1,
                                                                    sessionTokenHash: "again", sessionExpiresAt: t0 + 86_400_000,
                                                                    newHost: noBudget) == .redeemed(hostFingerprint: known))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aNewHostBeyondTheClientsBudgetIsRefusedWithNothingChanged(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            try await store.insertChallenge(challenge("c1"))
            let spent = GatewayNewHostRule(maxHosts: 10) { false }
            #expect(try await store.redeemChallenge(id: "c1", proofHash: "expected-proof-hash", nowMs: t0, sessionTokenHash: "s1",
                                                    sessionExpiresAt: t0 + 86_400_000, newHost: spent) == .newHostRateLimited)
            #expect(try await database.count("SELECT count(*) FROM push_hosts") == 0)
            #expect(try await store.redeemChallenge(id: "c1", proofHash: "expected-proof-hash", nowMs: t0, sessionTokenHash: "s1",
                                                    sessionExpiresAt: t0 + 86_400_000, newHost: Self.anyNewHost)
                        == .redeemed(hostFingerprint: host), "the challenge is still there to answer")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func hostsWithoutASessionForTheirTTLGoWithTheirPhones(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            let ttl: Int64 = 30 * 86_400_000
            try await store.insertChallenge(challenge("idle"))
            try await store.insertChallenge(challenge("active", host: otherHost, expiresAt: t0 + ttl))
            _ = try await store.redeemChallenge(id: "idle", proofHash: "expected-proof-hash", nowMs: t0, sessionTokenHash: "s-idle",
                                                sessionExpiresAt: t0 + 86_400_000, newHost: Self.anyNewHost)
            _ = try await store.redeemChallenge(id: "active", proofHash: "expected-proof-hash", nowMs: t0 + ttl,
                                                sessionTokenHash: "s-active", sessionExpiresAt: t0 + ttl + 86_400_000,
                                                newHost: Self.anyNewHost)
            try await register(store, "phone", id: "r-idle")
            try await register(store, "phone", id: "r-active", host: otherHost)
            #expect(try await store.pruneHosts(nowMs: t0 + ttl, idleMs: ttl) == 0, "exactly TTL ago is kept")
            #expect(try await store.pruneHosts(nowMs: t0 + ttl + 1, idleMs: ttl) == 1)
            #expect(try await database.count("SELECT count(*) FROM push_hosts") == 1)
            #expect(try await store.device(registrationId: "r-idle") == nil)
            #expect(try await store.device(registrationId: "r-active") != nil)
            #expect(try await store.session(tokenHash: "s-idle") == nil)
            #expect(try await store.session(tokenHash: "s-active") != nil)
        }
    }

    // MARK: - Pruning (§5.3, §8)

    @Test(arguments: StoreEngine.allCases)
    func prunesKeepRowsUpToTheirBoundary(engine: StoreEngine) async throws {
        try await engine.withGatewayStore { store, database throws in
            let expiresAt = t0 + 10_000
            try await store.insertChallenge(challenge("c1", expiresAt: expiresAt))
            #expect(try await store.pruneChallenges(nowMs: expiresAt + 30_000) == 0)
            #expect(try await store.pruneChallenges(nowMs: expiresAt + 30_001) == 1)

            try await store.insertChallenge(challenge("c2", expiresAt: expiresAt))
            let sessionExpiry = t0 + 86_400_000
            _ = try await store.redeemChallenge(id: "c2", proofHash: "expected-proof-hash", nowMs: t0, sessionTokenHash: "s",
                                                sessionExpiresAt: sessionExpiry, newHost: Self.anyNewHost)
            #expect(try await store.pruneSessions(nowMs: sessionExpiry) == 0)
            #expect(try await store.pruneSessions(nowMs: sessionExpiry + 1) == 1)

            try await register(store, "phone", id: "r1")
            #expect(try await admit(store, ["r1"], at: t0) == [Self.admitted])
            #expect(try await store.pruneSendLog(nowMs: t0 + 90_000_000) == 0)
            #expect(try await store.pruneSendLog(nowMs: t0 + 90_000_001) == 1)
        }
    }

    // MARK: - The store

    @Test(arguments: StoreEngine.allCases)
    func theBindingAndGatewayStoresShareOneDatabase(engine: StoreEngine) async throws {
        let database = try await engine.makeDatabase()
        let bindings = try await database.open()
        try await database.withGatewayStores(1) { stores in
            try await register(stores[0], "phone", id: "r1")
            #expect(try await bindings.register(token: "aa", kind: .alert, serverId: "host-1", nowMs: t0) == .created)
        }
        try await bindings.close()
        // Either store reopens the database the other migrated.
        let reopened = try await database.open()
        #expect(try await reopened.count() == 1)
        try await reopened.close()
        try await database.withGatewayStores(1) { stores throws in
            #expect(try await stores[0].device(registrationId: "r1")?.hostFingerprint == host)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aClosedStoreRefusesCalls(engine: StoreEngine) async throws {
        let store = try await engine.makeDatabase().openGateway()
        try await store.close()
        await #expect(throws: StoreClosedError.self) { try await store.devices(hostFingerprint: self.host) }
        await #expect(throws: StoreClosedError.self) {
            try await store.registerDevice(self.phone("a"), newRegistrationId: "r1", nowMs: self.t0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func perHostLocksNeedAWriteTransaction(engine: StoreEngine) async throws {
        let database = try await engine.makeDatabase()
        try await database.withGatewayStores(1) { _ in }
        try await database.withConnection { connection in
            let gateway = try #require(connection as? any GatewayConnection)
            #expect(throws: GatewayLockError.self) { try gateway.lock(.devices, host: "MAyclgO5Kks57TlY") }
            try gateway.writeTransaction { try gateway.lock(.devices, host: "MAyclgO5Kks57TlY") }
        }
    }
}
