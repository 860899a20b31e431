import PushgateCommandLine
import PushgateCore
import PushgateHost

/// `pushgate-dev bench hapi`: the host's CPU for the encrypted fan-out of one event to 100 iOS
/// devices in relay mode, on one thread — the event composed into its payload, the plaintext
/// chosen once (canonical JSON, §4 cap), then per device the stored `pushKey` decoded, a fresh
/// envelope sealed (random nonce, AES-256-GCM, base64) and the `/v1/push` request body built.
/// The store read and the HTTP sends are left out: they are I/O, not host CPU.
enum BenchHapiFanoutSuite {
    /// Devices per event.
    static let devices = 100

    static func run(_ meter: BenchMeter, report: (BenchResult) -> Void) throws {
        let rows = (0..<devices).map { _ in (token: Hex.encode(SecureRandom.bytes(32)), pushKey: HapiPushKey.random().storedForm) }
        let event = sampleEvent()
        let check = try fanOut(event, rows)
        for (index, body) in check.enumerated() {
            let envelope = try JSONValue.parse(body)["envelope"]?.stringValue ?? ""
            let key = try HapiPushKey(base64: rows[index].pushKey)
            guard try HapiPayload(plaintext: HapiEnvelope.open(envelope, key: key)) == HapiComposer.payload(for: event) else {
                throw ToolFailure("an envelope does not open to the event's payload")
            }
        }
        let events = try meter.measure("hapi.fanout_events", unit: "events/s") { try fanOut(event, rows).count }
        report(events)
        report(BenchResult(name: "hapi.fanout_envelopes", unit: "envelopes/s", iterations: events.iterations * devices,
                           cpuSeconds: events.cpuSeconds, wallSeconds: events.wallSeconds))
    }

    /// One event to every row: the relay request bodies, one per device.
    private static func fanOut(_ event: HostEvent, _ rows: [(token: String, pushKey: String)]) throws -> [[UInt8]] {
        guard let payload = HapiComposer.payload(for: event), let plaintext = HapiPlaintext.choose(for: payload) else {
            throw ToolFailure("the sample event has no payload that fits")
        }
        let collapseId = HapiCollapseId.make(type: payload.type, sessionId: payload.sessionId)
        return try rows.map { row in
            let envelope = try HapiEnvelope.seal(plaintext.bytes, key: HapiPushKey(base64: row.pushKey))
            return HapiRelayClient.body(platform: .ios, token: row.token, envelope: envelope, collapseId: collapseId)
        }
    }

    /// A `ready` event whose agent text ends in a summary footer (about 600 plaintext bytes).
    static func sampleEvent() -> HostEvent {
        let text = "I moved the rate limiter into its own type and added tests for the refill edge cases.\n"
            + "AGENT_NOTIFY_SUMMARY {\"version\":1,\"summary\":\"Rate limiter refactored, 12 new tests pass\","
            + "\"action\":\"Review the diff in RateLimiter.swift\",\"status\":\"done\",\"project\":\"pushgate\"}"
        return HostEvent(type: .ready, sessionId: "3f2c9a4e-8b1d-4c7e-9f60-2a5d7e1b4c93", sessionName: "refactor relay limits",
                         agent: "Claude", agentText: text)
    }
}
