@testable import PushgateCore
@testable import PushgateHost
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 9–13 on the wire (host ↔ fake APNs in `apns` mode), the 2372/2373-byte
/// boundary, and fallbacks that never cut a character.
@Suite(.hangLimit(.minutes(1))) struct HapiFallbackTests {
    /// A ready event without agent text: the name appears in `sessionName` and in the body, the agent once.
    static func readyEvent(name: String, agent: String) -> HostEvent {
        HostEvent(type: .ready, sessionId: "s1", sessionName: name, agent: agent)
    }

    /// The agent label that makes the ready payload's canonical JSON exactly `bytes` long.
    static func agent(forPlaintextBytes bytes: Int, name: String) throws -> String {
        let base = try #require(HapiComposer.payload(for: readyEvent(name: name, agent: "a"))).canonicalPlaintext.count
        return String(repeating: "a", count: 1 + bytes - base)
    }

    static func wire(_ event: HostEvent) -> JSONObject {
        JSONObject([("type", .string(event.type.rawValue)), ("sessionId", .string(event.sessionId)),
                    ("sessionName", .string(event.sessionName ?? "")), ("agent", .string(event.agent ?? ""))])
    }

    @Test func plaintextOf2372BytesGoesInFullAnd2373FallsBack() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let name = String(repeating: "名", count: 300) + String(repeating: "n", count: 100)
        let fits = Self.readyEvent(name: name, agent: try Self.agent(forPlaintextBytes: 2372, name: name))
        let full = try #require(HapiComposer.payload(for: fits))
        #expect(full.canonicalPlaintext.count == 2372)
        _ = try await harness.event(Self.wire(fits))
        let first = try DeviceSide.open(try #require(harness.apnsRequests(token).last), key: key)
        #expect(first.envelope.utf8.count == 3200)
        #expect(first.payload == full, "sent in full, nothing cut")
        await harness.advance(byMs: 5_000)
        let tooBig = Self.readyEvent(name: name, agent: try Self.agent(forPlaintextBytes: 2373, name: name))
        #expect(try #require(HapiComposer.payload(for: tooBig)).canonicalPlaintext.count == 2373)
        _ = try await harness.event(Self.wire(tooBig))
        let second = try DeviceSide.open(try #require(harness.apnsRequests(token).last), key: key)
        #expect(try DeviceSide.plaintext(second.envelope, key: key)
            == #"{"body":"New activity","contractVersion":"1","sessionId":"s1","title":"HAPI","type":"ready"}"#)
        #expect(harness.apnsRequests(token).count == 2)
        await harness.stop()
    }

    @Test func anOversizedSummaryIsDroppedAndEverythingElseKept() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let cjk = String(repeating: "中", count: 300)
        let footer = JSONObject([("version", 1), ("summary", .string(cjk)), ("action", .string("做" + cjk)), ("status", .string(cjk)),
                                 ("agent", .string(cjk)), ("project", .string(cjk))]).serialized()
        var body = Self.wire(HostEvent(type: .ready, sessionId: "s1", sessionName: "Demo", agent: "Claude"))
        body["agentText"] = .string("AGENT_NOTIFY_SUMMARY " + footer)
        let expected = try #require(HapiComposer.payload(for: try HostEvent(json: .object(body))))
        #expect(expected.notifySummary != nil && !HapiEnvelope.fits(plaintextByteCount: expected.canonicalPlaintext.count))
        _ = try await harness.event(body)
        let opened = try DeviceSide.open(try #require(harness.apnsRequests(token).first), key: key)
        #expect(opened.payload == expected.withoutSummary)
        #expect(opened.envelope.utf8.count <= 3200)
        await harness.stop()
    }

    @Test func hugeTitleAndBodyGiveTheMinimalObjectWithTheRequestId() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let name = String(repeating: "😀", count: 700)
        let body = JSONObject([("type", "permission"), ("sessionId", "s1"), ("sessionName", .string(name)),
                               ("pendingRequests", [["id": "r1", "tool": "Bash", "arguments": ["command": .string(name)]]])])
        _ = try await harness.event(body)
        await harness.advance(byMs: PendingRequestDebounce.delayMs)
        let opened = try DeviceSide.open(try #require(harness.apnsRequests(token).first), key: key)
        #expect(try DeviceSide.plaintext(opened.envelope, key: key)
            == #"{"body":"New activity","contractVersion":"1","requestId":"r1","sessionId":"s1","title":"HAPI","type":"permission-request"}"#)
        #expect(opened.payload.sessionName == nil && opened.payload.url == nil && opened.payload.severity == nil)
        await harness.stop()
    }

    @Test func aPayloadTooLargeEvenWhenMinimalIsNotSentAndTheRowStays() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        try await harness.registerDevice(token)
        let fanout = try Self.apnsFanout(harness)
        let sessionId = String(repeating: "s", count: 4000)
        let payload = HapiPayload(type: .ready, sessionId: sessionId, sessionName: "Secret name", url: "/sessions/x",
                                  title: "Secret title", body: "Secret body", severity: .info)
        let tally = try await fanout.deliver(payload, namespace: "default")
        #expect(tally == HapiTally(sent: 0, failed: 1, dead: 0, oversized: 1))
        #expect(!DispatchResult(eventId: EventId.make(), accepted: tally.sent, failed: tally.failed, dropped: tally.dead).nativeDelivered)
        #expect(harness.fake.requests.isEmpty)
        #expect(try await harness.service.store.hapiDevices(namespace: "default").map(\.token) == [token])
        let line = try #require(harness.logs.lines.first { $0.contains("too large") })
        #expect(line.contains("type=ready") && line.contains("minimalBytes="))
        #expect(harness.leaks(["Secret", sessionId]).isEmpty)
        await harness.stop()
    }

    @Test func fallbackFormsNeverCutACharacter() async throws {
        let harness = try await HostHarness(hapi: .apns)
        let token = TestToken.make()
        let key = try #require(try await harness.registerDevice(token))
        let fanout = try Self.apnsFanout(harness)
        let name = "👨‍👩‍👧 é 中"
        for repeats in [1, 100, 130, 160, 400] {
            let text = String(repeating: name, count: repeats)
            let payload = HapiPayload(type: .permissionRequest, sessionId: "s-😀", sessionName: text, url: "/sessions/s-😀",
                                      requestId: "r-中", title: "Permission Request", body: text, severity: .warning,
                                      notifySummary: JSONObject([("summary", .string(text))]).serialized())
            #expect(try await fanout.deliver(payload, namespace: "default").sent == 1)
            let plaintext = try DeviceSide.plaintext(try DeviceSide.open(try #require(harness.apnsRequests(token).last), key: key).envelope, key: key)
            let forms = [payload, payload.withoutSummary, payload.minimal].map { String(decoding: $0.canonicalPlaintext, as: UTF8.self) }
            #expect(forms.contains(plaintext), "\(repeats): the device gets one of the three forms, whole")
        }
        await harness.stop()
    }

    /// A fan-out over the harness store whose iOS lane is a direct APNs client pointed at the fake.
    static func apnsFanout(_ harness: HostHarness) throws -> HapiFanout {
        let direct = try #require(harness.service.settings.directAPNs)
        let client = try APNsClient(configuration: direct.configuration, clock: harness.clock,
                                    logger: Logger(component: "apns", minimumLevel: .error))
        let lane = HapiAPNsLane(client: client, bundleId: direct.bundleId, environment: .production, ttlSeconds: 0,
                                clock: harness.clock)
        return HapiFanout(store: harness.service.store, android: .off, ios: .encrypted(lane), outbox: nil,
                          logger: Logger(component: "host", minimumLevel: .debug, sink: harness.logs))
    }
}
