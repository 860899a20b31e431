import Foundation
import Testing
import PushgateCore
import PushgateTestSupport

/// protocol/gateway.md §12 lines 19–25: the send schema, results, quotas and the send-log prune.
@Suite(.hangLimit(.minutes(1))) struct GatewaySendTests {
    // §12 line 19
    @Test func sendSchemaIsStrict() async throws {
        let harness = try await GatewayHarness()
        let session = try await harness.handshake(try harness.newHost())
        let id = try await harness.register(GatewayHarness.device("phone"), session: session)
        func body(ids: [String] = [id], _ edit: (inout JSONObject) -> Void) -> JSONValue {
            var object = GatewayHarness.send(ids).objectValue!
            var note = object["notification"]!.objectValue!
            edit(&note)
            object["notification"] = .object(note)
            return .object(object)
        }
        let emoji = "😀"
        let refused: [(String, JSONValue)] = [
            ("21 ids", GatewayHarness.send((0..<21).map { "r\($0)" })),
            ("0 ids", GatewayHarness.send([])),
            ("an empty id", GatewayHarness.send([""])),
            ("title of 81 units", body { $0["title"] = .string(String(repeating: "t", count: 81)) }),
            ("empty title", body { $0["title"] = "" }),
            ("41 emoji title", body { $0["title"] = .string(String(repeating: emoji, count: 41)) }),
            ("body of 181", body { $0["body"] = .string(String(repeating: "b", count: 181)) }),
            ("missing agentState key", body { $0["agentState"] = nil }),
            ("unknown notification member", body { $0["sound"] = false }),
            ("agentState busy", body { $0["agentState"] = "busy" }),
            ("negative seq", body { $0["notificationSeq"] = -1 }),
            ("seq past 2^53 - 1", body { $0["notificationSeq"] = .integer(9_007_199_254_740_992) }),
            ("fractional seq", body { $0["notificationSeq"] = .double(1.5) }),
            ("unknown source", body { $0["source"] = "email" }),
            ("empty notificationId", body { $0["notificationId"] = "" }),
            ("worktreeId of 257", body { $0["worktreeId"] = .string(String(repeating: "w", count: 257)) }),
            ("missing body", body { $0["body"] = nil }),
        ]
        for (name, json) in refused {
            let reply = try await harness.call("POST", "/v1/send", json: json, session: session)
            #expect(reply.status == 400 && reply.text == #"{"error":"invalid_request"}"#, "\(name)")
        }
        var top = GatewayHarness.send([id]).objectValue!
        top["priority"] = 10
        #expect(try await harness.call("POST", "/v1/send", json: .object(top), session: session).status == 400, "unknown member")
        #expect(try harness.count("SELECT count(*) FROM push_send_log") == 0)

        let accepted: [JSONValue] = [
            body { $0["title"] = .string(String(repeating: emoji, count: 40)) },
            body { $0["body"] = "" },
            body { $0["agentState"] = .null; $0["notificationId"] = nil; $0["worktreeId"] = nil; $0["source"] = "terminal-bell" },
            body { $0["title"] = .string(String(repeating: "t", count: 80)); $0["body"] = .string(String(repeating: "b", count: 180)) },
            GatewayHarness.send((0..<20).map { "r\($0)" }),
        ]
        for json in accepted {
            let reply = try await harness.call("POST", "/v1/send", json: json, session: session)
            #expect(reply.status == 200, "\(reply.text)")
        }
        await harness.stop()
    }

    // §12 line 20
    @Test func repeatedIdsGetOneResultAndOneCharge() async throws {
        let harness = try await GatewayHarness()
        let session = try await harness.handshake(try harness.newHost())
        let id = try await harness.register(GatewayHarness.device("phone"), session: session)
        let reply = try await harness.call("POST", "/v1/send", json: GatewayHarness.send([id, id, id]), session: session)
        #expect(reply.json == ["results": [["registrationId": .string(id), "status": "queued"]]])
        #expect(try harness.count("SELECT count(*) FROM push_send_log") == 1)
        #expect(harness.gateway.pendingNotifications == 1)
        await harness.stop()
    }

    // §12 line 21
    @Test func resultsInOrderAndOnlyOwnLiveRegistrationsAreCharged() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let mine = try await harness.handshake(try harness.newHost())
        let theirs = try await harness.handshake(try harness.newHost())
        let own = try await harness.register(GatewayHarness.device("own"), session: mine)
        let foreign = try await harness.register(GatewayHarness.device("foreign"), session: theirs)
        let unknown = RandomUUID.lowercase()
        #expect(try await harness.send(GatewayHarness.send([unknown, foreign, own]), session: mine)
            == ["\(unknown):error", "\(foreign):error", "\(own):queued"])
        #expect(try harness.rows("SELECT registration_id FROM push_send_log") == [[own]])
        #expect(harness.gateway.pendingNotifications == 1)
        await harness.advance(byMs: 0)
        #expect(harness.fake.requests.count == 1, "nothing queued for the foreign registration")

        // A dead registration answers `dead` and is not charged.
        let deadToken = Hex.encode(SecureRandom.bytes(32))
        let dead = try await harness.register(GatewayHarness.device("dead", token: deadToken), session: mine)
        harness.fake.script(token: deadToken, .init(status: 410, reason: .unregistered))
        _ = try await harness.send(GatewayHarness.send([dead]), session: mine)
        await harness.advance(byMs: 0)
        let charged = try harness.count("SELECT count(*) FROM push_send_log")
        #expect(try await harness.send(GatewayHarness.send([dead, own]), session: mine) == ["\(dead):dead", "\(own):queued"])
        #expect(try harness.count("SELECT count(*) FROM push_send_log") == charged + 1)
        #expect(harness.gateway.counter("send_dead") == 1 && harness.gateway.counter("send_error") == 2)
        await harness.stop()
    }

    // §12 line 22
    @Test func hostQuotaIsSixtyPerRollingHour() async throws {
        let harness = try await GatewayHarness()
        let session = try await harness.handshake(try harness.newHost())
        let ids = [try await harness.register(GatewayHarness.device("a"), session: session),
                   try await harness.register(GatewayHarness.device("b"), session: session)]
        let first = harness.clock.nowMilliseconds
        for index in 0..<60 {
            #expect(try await harness.send(GatewayHarness.send([ids[index % 2]]), session: session) == ["\(ids[index % 2]):queued"])
            await harness.advance(byMs: 1_000)
        }
        let refused = try await harness.call("POST", "/v1/send", json: GatewayHarness.send([ids[0]]), session: session)
        #expect(refused.status == 200)
        #expect(refused.json == ["results": [["registrationId": .string(ids[0]), "status": "rate_limited"]]])
        #expect(try harness.count("SELECT count(*) FROM push_send_log") == 60, "a refusal is not logged")
        await harness.advance(byMs: first + 3_600_000 - 1 - harness.clock.nowMilliseconds)
        #expect(try await harness.send(GatewayHarness.send([ids[1]]), session: session) == ["\(ids[1]):rate_limited"])
        await harness.advance(byMs: 1)
        #expect(try await harness.send(GatewayHarness.send([ids[1]]), session: session) == ["\(ids[1]):queued"])
        #expect(try await harness.send(GatewayHarness.send([ids[0]]), session: session) == ["\(ids[0]):rate_limited"])
        #expect(harness.gateway.counter("send_rate_limited") == 3)
        await harness.stop()
    }

    // §12 line 23
    @Test func registrationQuotaIsTwoHundredPerRollingDay() async throws {
        let harness = try await GatewayHarness()
        let host = try harness.newHost()
        var session = try await harness.handshake(host)
        let busy = try await harness.register(GatewayHarness.device("busy"), session: session)
        let quiet = try await harness.register(GatewayHarness.device("quiet"), session: session)
        let first = harness.clock.nowMilliseconds
        // 50 an hour (one every 72 s) never meets the host's 60.
        for _ in 0..<200 {
            #expect(try await harness.send(GatewayHarness.send([busy]), session: session) == ["\(busy):queued"])
            await harness.advance(byMs: 72_000)
        }
        #expect(try await harness.send(GatewayHarness.send([busy]), session: session) == ["\(busy):rate_limited"])
        #expect(try await harness.send(GatewayHarness.send([quiet]), session: session) == ["\(quiet):queued"])
        await harness.advance(byMs: first + 86_400_000 - harness.clock.nowMilliseconds)
        session = try await harness.handshake(host)
        #expect(try await harness.send(GatewayHarness.send([busy]), session: session) == ["\(busy):queued"])
        await harness.stop()
    }

    // §12 line 24
    @Test func fanOutCountsPerRegistrationAndConcurrentSendsQueueExactlySixty() async throws {
        let harness = try await GatewayHarness(relaySettings: ["MAX_CONNECTIONS_PER_IP": "4096"])
        let session = try await harness.handshake(try harness.newHost())
        var ids: [String] = []
        for index in 0..<3 { ids.append(try await harness.register(GatewayHarness.device("p\(index)"), session: session)) }
        #expect(try await harness.send(GatewayHarness.send(ids), session: session).count == 3)
        #expect(try harness.count("SELECT count(*) FROM push_send_log") == 3, "one notification to 3 phones uses 3 of 60")

        let other = try await harness.handshake(try harness.newHost())
        var targets: [String] = []
        for index in 0..<5 { targets.append(try await harness.register(GatewayHarness.device("q\(index)"), session: other)) }
        let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
            for index in 0..<100 {
                let id = targets[index % targets.count]
                group.addTask { try await harness.send(GatewayHarness.send([id], seq: Int64(index)), session: other) }
            }
            return try await group.reduce(into: [String]()) { $0 += $1.map { String($0.split(separator: ":").last!) } }
        }
        #expect(statuses.count == 100)
        #expect(statuses.filter { $0 == "queued" }.count == 60)
        #expect(statuses.filter { $0 == "rate_limited" }.count == 40)
        #expect(try harness.count("SELECT count(*) FROM push_send_log WHERE registration_id IN ('\(targets.joined(separator: "','"))')") == 60)
        #expect(harness.gateway.pendingNotifications == 63)
        await harness.stop()
    }

    // §12 line 25: the 30-minute prune deletes rows older than 25 h, to the millisecond.
    @Test func sendLogPruneKeepsTwentyFiveHours() async throws {
        let harness = try await GatewayHarness()
        let start = harness.clock.nowMilliseconds
        let session = try await harness.handshake(try harness.newHost())
        let id = try await harness.register(GatewayHarness.device("phone"), session: session)
        _ = try await harness.send(GatewayHarness.send([id]), session: session)  // row A at start
        await harness.advance(byMs: 1_799_999)
        _ = try await harness.send(GatewayHarness.send([id]), session: session)  // row B at start + 1 799 999
        let rowsA = "SELECT count(*) FROM push_send_log WHERE sent_at = \(start)"
        let rowsB = "SELECT count(*) FROM push_send_log WHERE sent_at = \(start + 1_799_999)"
        // The prune at start + 25 h is A's t + 25 h: kept.
        await harness.advance(byMs: start + 90_000_000 - harness.clock.nowMilliseconds)
        #expect(try harness.count(rowsA) == 1 && harness.count(rowsB) == 1)
        // The prune at start + 25 h 30 min is B's t + 25 h + 1 ms: both gone.
        await harness.advance(byMs: 1_799_999)
        #expect(try harness.count(rowsB) == 1, "no prune yet")
        await harness.advance(byMs: 1)
        #expect(try harness.count(rowsA) == 0 && harness.count(rowsB) == 0)
        await harness.stop()
    }
}
