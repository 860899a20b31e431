@testable import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/host.md "Outbox": host ↔ real relay ↔ fake APNs on the manual clock; the outbox's
/// rounds are run by advancing the clock, then waited for.
@Suite(.hangLimit(.minutes(1))) struct OutboxTests {
    @Test func anAcceptedEventWritesNothingToTheOutbox() async throws {
        try await HostHarness.with { harness, token in
            try await harness.register(token)
            let result = try await harness.event("error", "s1")
            #expect(result["accepted"] == 1)
            #expect(result["queued"] == 0)
            #expect(try await harness.outbox()["depth"] == 0)
            #expect(try await harness.outbox()["queued"] == 0)
        }
    }

    @Test func aThrottledPushWaitsForRetryAfterThenIsSentOnceMore() async throws {
        try await HostHarness.with { harness, token in
            try await harness.register(token)
            harness.fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests, retryAfterSeconds: 3),
                                                         ScriptedResponse(status: 200)])
            let result = try await harness.event("error", "s1")
            #expect(result["accepted"] == 0)
            #expect(result["failed"] == 1)
            #expect(result["queued"] == 1)
            #expect(try await harness.outbox()["depth"] == 1)

            await harness.advanceOutbox(byMs: 2_000)
            #expect(harness.payloads(token).count == 1, "Retry-After: 3 is honoured over the 1 s back-off")
            await harness.advanceOutbox(byMs: 1_000)
            let payloads = harness.payloads(token)
            #expect(payloads.count == 2)
            #expect(payloads.last == payloads.first, "the same alert, badge and event id")
            let outbox = try await harness.outbox()
            #expect(outbox["depth"] == 0)
            #expect(outbox["delivered"] == 1)
            #expect(outbox["retries"] == 1)
        }
    }

    @Test func aRefusedPushIsNotQueued() async throws {
        try await HostHarness.with { harness, token in
            try await harness.register(token)
            harness.fake.script(token: token, ScriptedResponse(status: 400, reason: .payloadTooLarge))
            let result = try await harness.event("error", "s1")
            #expect(result["failed"] == 1)
            #expect(result["queued"] == 0)
        }
    }

    @Test func aTokenRemovedMeanwhileIsOwedNothing() async throws {
        try await HostHarness.with { harness, token in
            try await harness.queueOnePush(to: token)
            #expect(try await harness.call("DELETE", "/api/push/apns-token", ["token": .string(token)]).status == 200)
            harness.fake.clearScripts()
            await harness.advanceOutbox(byMs: 2_000)
            #expect(harness.payloads(token).count == 1)
            #expect(try await harness.outbox()["depth"] == 0)
            #expect(try await harness.outbox()["failed"] == 1)
        }
    }

    @Test func entriesPastTheDeadlineExpire() async throws {
        try await HostHarness.with(hostEnvironment: ["PUSHGATE_OUTBOX_DEADLINE_SECONDS": "10"]) { harness, token in
            try await harness.queueOnePush(to: token)
            // 1 s, 2 s, 4 s (jittered down to half at most): the try after the one at 7 s at most would pass 10 s.
            for _ in 0..<12 { await harness.advanceOutbox(byMs: 1_000) }
            let outbox = try await harness.outbox()
            #expect(outbox["depth"] == 0)
            #expect(outbox["expired"] == 1)
            #expect((2...4).contains(harness.payloads(token).count - 1), "tries before the deadline: \(harness.payloads(token).count - 1)")
        }
    }

    @Test func overTheBoundTheOldestEntriesAreDropped() async throws {
        try await HostHarness.with(hostEnvironment: ["PUSHGATE_OUTBOX_MAX": "2"]) { harness, token in
            try await harness.register(token)
            harness.fake.script(token: token, ScriptedResponse(status: 429, reason: .tooManyRequests))
            for session in ["s1", "s2", "s3"] { #expect(try await harness.event("error", session)["queued"] == 1) }
            let outbox = try await harness.outbox()
            #expect(outbox["depth"] == 2)
            #expect(outbox["evicted"] == 1)
            harness.fake.clearScripts()
            await harness.advanceOutbox(byMs: 2_000)
            let sessions = harness.payloads(token).dropFirst(3).compactMap { $0["sessionId"]?.stringValue }
            #expect(sessions.sorted() == ["s2", "s3"], "the oldest entry (s1) was the one dropped")
        }
    }

    @Test func theOutboxResumesAfterARestart() async throws {
        let home = TemporaryHome()
        let token = TestToken.make()
        let first = try await HostHarness(home: home)
        try await first.queueOnePush(to: token)
        await first.stop()

        let second = try await HostHarness(home: home)
        #expect(try await second.outbox()["depth"] == 1, "the entry is in host.sqlite, not in memory")
        try await second.register(token)
        await second.advanceOutbox(byMs: 2_000)
        #expect(second.payloads(token).count == 1)
        #expect(try await second.outbox()["depth"] == 0)
        await second.stop()
    }

    /// A store that takes no write (as on a full disk; the fault suite fills a real one): the
    /// outbox cannot be written, so the host answers 503 `store_unavailable`; the hub's retry of
    /// the same event is sent only to the device still owed it.
    @Test func anUnwritableStoreAnswers503AndTheRetrySendsOnlyTheRest() async throws {
        try await HostHarness.with { harness, owed in
            let accepted = TestToken.make()
            try await harness.register(accepted)
            try await harness.register(owed)
            harness.fake.script(token: owed, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests), ScriptedResponse(status: 200)])
            try await harness.service.store.refuseWrites()
            let body: JSONValue = ["type": "error", "sessionId": "s1", "eventId": "hub-1"]
            let first = try await harness.call("POST", "/api/events", body)
            #expect(first.status == 503)
            #expect(first.json?["error"] == "store_unavailable")
            #expect(first.json?["accepted"] == 1)
            #expect(first.json?["queued"] == 0)

            let retry = try await harness.call("POST", "/api/events", body)
            #expect(retry.status == 200)
            #expect(retry.json?["accepted"] == 1)
            #expect(harness.payloads(accepted).count == 1, "the device that accepted it is not sent it twice")
            #expect(harness.payloads(owed).count == 2)
        }
    }

    @Test func outboxSettingsAreChecked() throws {
        let home = TemporaryHome()
        for (name, value) in [("PUSHGATE_OUTBOX_MAX", "0"), ("PUSHGATE_OUTBOX_DEADLINE_SECONDS", "-1"),
                              ("PUSHGATE_OUTBOX_DEADLINE_SECONDS", "604801"), ("PUSHGATE_METRICS_LISTEN", "nowhere")] {
            #expect(throws: HostSettingsError.self, "\(name)=\(value)") {
                try HostSettings.load(environment: home.environment([name: value]))
            }
        }
    }
}

extension HostHarness {
    /// Registers `token`, has the fake throttle it (429; then `then` for later pushes, when
    /// given) and posts an `error` event for `session`, whose push the outbox takes.
    func queueOnePush(to token: String, session: String = "s1", then: ScriptedResponse? = nil) async throws {
        try await register(token)
        fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests)] + (then.map { [$0] } ?? []))
        #expect(try await event("error", session)["queued"] == 1)
    }

    /// The `outbox` member of `GET /api/status`.
    func outbox() async throws -> JSONValue { try await call("GET", "/api/status").json?["outbox"] ?? .null }

    /// Moves the clock and waits for the outbox rounds it starts: a round that read the clock
    /// before the advance reached its end arms its timer for an entry already due, which runs
    /// here too (a real clock would fire it at once).
    func advanceOutbox(byMs ms: Int64) async {
        scheduler.advance(byMs: ms)
        await service.outbox.waitForRound()
        while scheduler.hasDueJobs {
            scheduler.advance(byMs: 0)
            await service.outbox.waitForRound()
        }
    }
}

extension HostStore {
    /// Makes every later write of this store fail, as a full disk would.
    func refuseWrites() throws { try connection.execute("PRAGMA query_only = 1") }

    /// Lets writes through again.
    func allowWrites() throws { try connection.execute("PRAGMA query_only = 0") }

    /// The `message` of every outbox row.
    func outboxMessages() throws -> [String] {
        try connection.withStatement("SELECT message FROM outbox") { statement in
            var messages: [String] = []
            while try statement.step() { messages.append(statement.string(at: 0) ?? "") }
            return messages
        }
    }
}

/// docs/host.md "Outbox": the cases the hub and the store make hard.
@Suite(.hangLimit(.minutes(1))) struct OutboxEdgeTests {
    /// With writes refused, an event whose pushes are all accepted still answers 200: it ran no statement.
    @Test func anAcceptedEventNeedsNoWrite() async throws {
        try await HostHarness.with { harness, token in
            try await harness.register(token)
            try await harness.service.store.refuseWrites()
            let answer = try await harness.call("POST", "/api/events", ["type": "error", "sessionId": "s1"])
            #expect(answer.status == 200)
            #expect(answer.json?["accepted"] == 1)
        }
    }

    /// A hub's retry after a 503 is not a new `ready`: the cooldown that the first one started does not swallow it.
    @Test func theRetryOfA503IsNotSwallowedByTheCooldown() async throws {
        try await HostHarness.with { harness, token in
            try await harness.register(token)
            harness.fake.script(token: token, sequence: [ScriptedResponse(status: 429, reason: .tooManyRequests), ScriptedResponse(status: 200)])
            try await harness.service.store.refuseWrites()
            let body: JSONValue = ["type": "ready", "sessionId": "s1", "eventId": "hub-ready"]
            #expect(try await harness.call("POST", "/api/events", body).status == 503)
            let retry = try await harness.call("POST", "/api/events", body)
            #expect(retry.status == 200)
            #expect(retry.json?["suppressed"] == .null)
            #expect(retry.json?["accepted"] == 1)
            #expect(harness.payloads(token).count == 2)
        }
    }

    /// Rows that could not be deleted after an accepted retry are deleted before anything is sent again.
    @Test func aSettlementThatCouldNotBeWrittenNeverSendsAnAcceptedPushAgain() async throws {
        try await HostHarness.with { harness, token in
            try await harness.queueOnePush(to: token, then: ScriptedResponse(status: 200))
            try await harness.service.store.refuseWrites()
            await harness.advanceOutbox(byMs: 2_000)
            #expect(harness.payloads(token).count == 2, "the retry was accepted; its row could not be deleted")
            await harness.advanceOutbox(byMs: HostOutbox.storeRetryMs)
            #expect(harness.payloads(token).count == 2, "nothing is sent while the settlement waits")
            try await harness.service.store.allowWrites()
            await harness.advanceOutbox(byMs: HostOutbox.storeRetryMs)
            #expect(harness.payloads(token).count == 2)
            #expect(try await harness.outbox()["depth"] == 0)
            #expect(try await harness.outbox()["delivered"] == 1)
        }
    }

    /// iOS push turned off with alerts in the outbox: they wait (no round without end), then expire.
    @Test func entriesWithoutATransportWaitForTheirDeadline() async throws {
        let home = TemporaryHome()
        let token = TestToken.make()
        let first = try await HostHarness(home: home)
        try await first.queueOnePush(to: token)
        await first.stop()

        // Each harness's clock starts at the real time, so the deadline leaves room for a slow machine between the two.
        let off = try await HostHarness(mode: .off, hostEnvironment: ["PUSHGATE_OUTBOX_DEADLINE_SECONDS": "300"], home: home)
        await off.advanceOutbox(byMs: 2_000)
        #expect(try await off.outbox()["depth"] == 1)
        #expect(try await off.outbox()["retries"] == 0)
        for _ in 0..<12 { await off.advanceOutbox(byMs: 30_000) }
        #expect(try await off.outbox()["depth"] == 0)
        #expect(try await off.outbox()["expired"] == 1)
        await off.stop()
    }

    /// A hapi entry holds the sealed envelope and sends it again as it was; the plaintext is never stored.
    @Test func aHapiEntryHoldsTheSealedEnvelopeOnly() async throws {
        let relay = try HapiScriptedRelay()
        let harness = try await HostHarness(hapi: .relay, android: "off", relayURL: relay.url)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        relay.script(token, .json(503, #"{"ok":false}"#))
        let secret = "rm -rf the-secret-directory"
        let event = JSONObject([("type", "ready"), ("sessionId", "s1"), ("sessionName", "Secret session"), ("agent", "Claude"),
                                ("agentText", .string(secret)), ("eventId", "hub-hapi")])
        #expect(try await harness.event(event)["queued"] == 1)
        let messages = try await harness.service.store.outboxMessages()
        #expect(messages.count == 1)
        #expect(!messages.contains { $0.contains(secret) || $0.contains("Secret session") })
        relay.script(token, .json(200, #"{"ok":true}"#))
        await harness.advanceOutbox(byMs: 2_000)
        let envelopes = relay.requests.compactMap { $0.body?["envelope"]?.stringValue }
        #expect(envelopes.count == 2)
        #expect(envelopes.first == envelopes.last, "the same sealed envelope, not sealed again")
        let expected = try #require(HapiComposer.payload(for: try HostEvent(json: .object(event))))
        #expect(try HapiPayload(plaintext: HapiEnvelope.open(try #require(envelopes.last), key: key)) == expected)
        #expect(try await harness.outbox()["delivered"] == 1)
        await harness.stop()
        relay.stop()
    }
}
