import Foundation
import PushgateCore
@testable import PushgateRelay
import PushgateTestSupport
import PushgateTesting
import Testing

/// protocol/gateway.md §12 lines 26–29: coalescing windows on the manual scheduler, summaries seen
/// at the fake APNs, and what a failed delivery does (its retries: ``GatewayOutboxTests``).
@Suite(.hangLimit(.minutes(1))) struct GatewayCoalescingTests {
    /// A host with one session and `count` iOS phones.
    static func setUp(_ harness: GatewayHarness, phones count: Int = 1) async throws
        -> (host: HostChallengeAnswerer, session: String, ids: [String], tokens: [String]) {
        let host = try harness.newHost()
        let session = try await harness.handshake(host)
        var ids: [String] = [], tokens: [String] = []
        for index in 0..<count {
            let token = Hex.encode(SecureRandom.bytes(32))
            tokens.append(token)
            ids.append(try await harness.register(GatewayHarness.device("phone-\(index)", token: token), session: session))
        }
        return (host, session, ids, tokens)
    }

    // §12 line 26
    @Test func threeNeedsInputEventsBecomeOneSummary() async throws {
        let harness = try await GatewayHarness()
        let (host, session, ids, tokens) = try await Self.setUp(harness)
        for seq in 1...3 {
            _ = try await harness.send(GatewayHarness.send(ids, notificationId: "note-\(seq)", title: "Agent \(seq)",
                                                           seq: Int64(seq), worktreeId: "wt-\(seq)"), session: session)
            await harness.advance(byMs: 500)
        }
        #expect(harness.gateway.pendingNotifications == 3 && harness.gateway.openWindows == 1)
        #expect(harness.fake.requests.isEmpty)
        await harness.advance(byMs: 1_500)
        let requests = harness.fake.requests
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.deviceToken == tokens[0])
        #expect(request.header("apns-collapse-id") == "host:\(host.hostFingerprint)")
        let expected: JSONValue = [
            "aps": ["alert": ["title": "Orca", "body": "3 agents need attention"], "sound": "default",
                    "thread-id": .string(host.hostFingerprint)],
            "orca": ["hostFingerprint": .string(host.hostFingerprint), "worktreeId": "wt-3", "notificationId": "note-3",
                     "notificationSeq": 3, "notificationEpoch": "5c9e9a1e-0000-4000-8000-000000000000",
                     "source": "agent-task-complete", "agentState": "needs-input", "coalescedCount": 3],
        ]
        #expect(request.payload == expected)
        #expect(harness.gateway.pendingNotifications == 0 && harness.gateway.counter("delivery_sent") == 1)
        await harness.stop()
    }

    // §12 line 27
    @Test func summaryTextsAndSingleNotifications() async throws {
        let harness = try await GatewayHarness()
        let (host, session, ids, _) = try await Self.setUp(harness)
        _ = try await harness.send(GatewayHarness.send(ids, agentState: "finished"), session: session)
        _ = try await harness.send(GatewayHarness.send(ids, agentState: nil), session: session)
        await harness.advance(byMs: 3_000)
        _ = try await harness.send(GatewayHarness.send(ids, notificationId: "note-9", title: "Done", body: "All green"), session: session)
        await harness.advance(byMs: 3_000)
        _ = try await harness.send(GatewayHarness.send(ids, notificationId: nil, agentState: nil, title: "Bell", body: "",
                                                       source: "terminal-bell", worktreeId: nil), session: session)
        await harness.advance(byMs: 3_000)
        let requests = harness.fake.requests
        #expect(requests.count == 3)
        #expect(requests.map { $0.payload?["aps"]?["alert"] } == [
            ["title": "Orca", "body": "2 updates"], ["title": "Done", "body": "All green"], ["title": "Bell", "body": ""],
        ])
        #expect(requests.map { $0.header("apns-collapse-id") } == ["host:\(host.hostFingerprint)", "note-9", "host:\(host.hostFingerprint)"])
        #expect(requests.map { $0.payload?["orca"]?["coalescedCount"] } == [2, 1, 1])
        #expect(requests[0].payload?["orca"]?["agentState"] == .null, "the latest event's data, null kept")
        let bell = try #require(requests[2].payload?["orca"]?.objectValue)
        #expect(bell.keys == ["hostFingerprint", "notificationSeq", "notificationEpoch", "source", "agentState", "coalescedCount"])
        await harness.stop()
    }

    // §12 line 28
    @Test func oneWindowPerRegistrationThatNeverExtends() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "3000"])
        let (_, session, ids, tokens) = try await Self.setUp(harness, phones: 2)
        let timersBefore = harness.scheduler.pendingCount
        _ = try await harness.send(GatewayHarness.send([ids[0]]), session: session)
        _ = try await harness.send(GatewayHarness.send([ids[1]]), session: session)
        await harness.advance(byMs: 2_900)
        _ = try await harness.send(GatewayHarness.send([ids[0]], title: "Later"), session: session)
        #expect(harness.scheduler.pendingCount == timersBefore + 2, "two windows, two timers")
        await harness.advance(byMs: 99)
        #expect(harness.fake.requests.isEmpty)
        await harness.advance(byMs: 1)  // 3 000 ms after the first event: both windows flush, not extended
        let counts = Dictionary(uniqueKeysWithValues: harness.fake.requests.map {
            ($0.deviceToken ?? "", $0.payload?["orca"]?["coalescedCount"]?.safeIntegerValue ?? 0)
        })
        #expect(counts == [tokens[0]: 2, tokens[1]: 1])
        #expect(harness.scheduler.pendingCount == timersBefore)
        // After the flush a new event opens a new window of its own.
        _ = try await harness.send(GatewayHarness.send([ids[0]], title: "Next"), session: session)
        await harness.advance(byMs: 2_999)
        #expect(harness.fake.requests.count == 2)
        await harness.advance(byMs: 1)
        #expect(harness.fake.requests.count == 3)
        #expect(harness.fake.requests.last?.payload?["aps"]?["alert"]?["title"] == "Next")
        await harness.stop()
    }

    // §12 line 29
    @Test func failedDeliveriesAreCountedNeverThrownAndOnlyDeadTokensDie() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let (_, session, ids, tokens) = try await Self.setUp(harness, phones: 3)
        // A delivery that throws: this payload cannot become an APNs request (over 4 KiB once escaped).
        let control = String(repeating: "\u{1}", count: 256)
        let huge = GatewayHarness.send([ids[0]], notificationId: control, title: String(repeating: "\u{1}", count: 80),
                                       body: String(repeating: "\u{1}", count: 180), worktreeId: control)
        #expect(try await harness.send(huge, session: session) == ["\(ids[0]):queued"])
        await harness.advance(byMs: 0)
        #expect(harness.gateway.counter("delivery_error") == 1)
        #expect(harness.fake.requests.isEmpty)

        harness.fake.script(token: tokens[1], .init(status: 500, reason: .internalServerError))
        harness.fake.script(token: tokens[2], .init(status: 410, reason: .unregistered))
        _ = try await harness.send(GatewayHarness.send([ids[0], ids[1], ids[2]]), session: session)
        await harness.advance(byMs: 0)
        #expect(harness.gateway.counter("delivery_sent") == 1)
        #expect(harness.gateway.counter("delivery_error") == 1, "the 500 waits for a retry (GatewayOutboxTests)")
        #expect(harness.gateway.deliveryAttempts("unavailable") == 1)
        #expect(harness.gateway.counter("delivery_dead") == 1)
        #expect(try await harness.send(GatewayHarness.send([ids[1], ids[2]]), session: session) == ["\(ids[1]):queued", "\(ids[2]):dead"])
        let list = try await harness.call("GET", "/v1/devices", session: session)
        #expect(list.json?["devices"]?.arrayValue?.map { $0["dead"] } == [false, false, true])
        await harness.stop()
    }

    @Test func deletedRegistrationsGetNothingAndShutdownFlushesOpenWindows() async throws {
        let harness = try await GatewayHarness()
        let (_, session, ids, tokens) = try await Self.setUp(harness, phones: 2)
        _ = try await harness.send(GatewayHarness.send(ids), session: session)
        #expect(try await harness.call("DELETE", "/v1/devices/\(ids[0])", session: session).status == 204)
        #expect(harness.gateway.openWindows == 2)
        await harness.relay.shutdown(graceSeconds: 1)
        #expect(harness.fake.requests.map(\.deviceToken) == [tokens[1]], "flushed at shutdown; the deleted phone gets nothing")
        harness.fake.stop()
        try? FileManager.default.removeItem(at: harness.directory)
    }
}
