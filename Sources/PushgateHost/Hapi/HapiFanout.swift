import PushgateCore
import PushgateProviders

/// Sends one event's payload to every hapi device of a namespace: Android first, then iOS,
/// each finishing before the next starts.
///
/// - Important: protocol/hapi-push.md §6 (fan-out) and §4 — Android relay targets `phone` rows (no
///   usable key → failed, kept; `wear` skipped), direct FCM targets `phone` and `wear`; iOS
///   targets `ios` rows, and a row without a 32-byte key is dead and deleted unsent. The
///   plaintext is chosen once per event, then every device gets its own envelope (own key,
///   own random nonce). Nothing fits → every targeted device failed, rows kept, one log line
///   with sizes. Dead rows are deleted by `(namespace, token)`.
final class HapiFanout: OutboxSender {
    /// The Android route.
    enum AndroidRoute: Sendable {
        case encrypted(any HapiEnvelopeSender)
        case direct(any HapiDataSender)
        case off
    }

    /// The iOS route.
    enum IOSRoute: Sendable {
        case encrypted(any HapiEnvelopeSender)
        case off
    }

    /// Sends in flight at once, per platform.
    static let concurrency = 16

    private let store: HostStore
    private let android: AndroidRoute
    private let ios: IOSRoute
    private let logger: Logger
    /// Where envelopes that failed for a passing reason wait; nil: nothing is kept.
    private let outbox: HostOutbox?

    init(store: HostStore, android: AndroidRoute, ios: IOSRoute, outbox: HostOutbox?, logger: Logger) {
        self.store = store
        self.outbox = outbox
        self.android = android
        self.ios = ios
        self.logger = logger.named("hapi")
    }

    /// The iOS transport's name: `relay`, `apns` or `off`.
    var iosName: String {
        guard case .encrypted(let sender) = ios else { return "off" }
        return sender.name
    }

    /// The Android transport's name: `relay`, `fcm` or `off`.
    var androidName: String {
        switch android {
        case .encrypted(let sender): sender.name
        case .direct: "fcm"
        case .off: "off"
        }
    }

    /// Whether any platform has a transport.
    var isEnabled: Bool {
        if case .off = android, case .off = ios { return false }
        return true
    }

    /// False when ``deliver(_:namespace:)`` would send nothing: no transport, or no device stored.
    var mayDeliver: Bool { isEnabled && store.mayHaveHapiDevices }

    /// Delivers `payload` to the devices of `namespace` (only those whose token is in `only`,
    /// when given: a hub's retry of an event answered 503); the tally of every device's outcome,
    /// with the outbox entries (of event `eventId`) of the envelopes worth sending again.
    /// `level`: the event's interruption level, which a relay that takes it writes into `aps`.
    func deliver(_ payload: HapiPayload, namespace: String, eventId: String = "", only: Set<String>? = nil,
                 level: AlertAttention.Level? = nil) async throws -> HapiTally {
        guard mayDeliver else { return HapiTally() }
        var devices = try await store.hapiDevices(namespace: namespace)
        if let only { devices.removeAll { !only.contains($0.token) } }
        guard !devices.isEmpty else { return HapiTally() }
        let plaintext = HapiPlaintext.choose(for: payload)
        var tally = HapiTally()
        switch android {
        case .encrypted(let sender):
            tally += try await sendEncrypted(devices.filter { $0.platform == .phone }, sender: sender, plaintext: plaintext,
                                             collapseId: nil, keyless: .failed(reason: "no usable pushKey"),
                                             lane: HapiOutboxMessage.Lane.android, namespace: namespace, eventId: eventId,
                                             level: level)
        case .direct(let sender):
            let targets = devices.filter { $0.platform == .phone || $0.platform == .wear }
            let outcomes = await forEachConcurrently(targets, limit: Self.concurrency) { device in
                (device.token, await sender.send(token: device.token, platform: device.platform, payload: payload))
            }
            tally += try await apply(outcomes, namespace: namespace)
        case .off:
            break
        }
        if case .encrypted(let sender) = ios {
            tally += try await sendEncrypted(devices.filter { $0.platform == .ios }, sender: sender, plaintext: plaintext,
                                             collapseId: HapiCollapseId.make(type: payload.type, sessionId: payload.sessionId),
                                             keyless: .dead(reason: "corrupt pushKey"), lane: HapiOutboxMessage.Lane.ios,
                                             namespace: namespace, eventId: eventId, level: level)
        }
        if tally.oversized > 0 {
            logger.warning("hapi payload too large even in its minimal form; nothing sent on the encrypted lanes", [
                "type": payload.type.rawValue, "fullBytes": "\(payload.canonicalPlaintext.count)",
                "minimalBytes": "\(payload.minimal.canonicalPlaintext.count)", "devices": "\(tally.oversized)",
            ])
        }
        logger.info("hapi event delivered", ["type": payload.type.rawValue, "form": plaintext?.form.rawValue ?? "none",
                                             "sent": "\(tally.sent)", "failed": "\(tally.failed)", "dead": "\(tally.dead)"])
        return tally
    }

    /// One envelope per device; `keyless` is the outcome of a row without a usable key. A sealed
    /// envelope that failed with a passing failure becomes an outbox entry of `lane`.
    private func sendEncrypted(_ devices: [HapiDevice], sender: any HapiEnvelopeSender, plaintext: HapiPlaintext?,
                               collapseId: String?, keyless: HapiPushOutcome, lane: HapiOutboxMessage.Lane, namespace: String,
                               eventId: String, level: AlertAttention.Level?) async throws -> HapiTally {
        var outcomes: [(String, HapiPushOutcome)] = []
        var keyed: [(device: HapiDevice, key: HapiPushKey)] = []
        for device in devices {
            if let text = device.pushKey, let key = try? HapiPushKey(base64: text) {
                keyed.append((device, key))
            } else {
                outcomes.append((device.token, keyless))
            }
        }
        guard let plaintext else {
            outcomes += keyed.map { ($0.device.token, .failed(reason: "payload too large")) }
            var tally = try await apply(outcomes, namespace: namespace)
            tally.oversized = keyed.count
            return tally
        }
        let sent = await forEachConcurrently(keyed, limit: Self.concurrency) { target -> (String, HapiPushOutcome, String?) in
            guard let envelope = try? HapiEnvelope.seal(plaintext.bytes, key: target.key) else {
                return (target.device.token, .failed(reason: "seal failed"), nil)
            }
            return (target.device.token, await sender.send(token: target.device.token, envelope: envelope, collapseId: collapseId,
                                                           level: level), envelope)
        }
        outcomes += sent.map { ($0.0, $0.1) }
        var tally = try await apply(outcomes, namespace: namespace)
        let nowMs = store.clock.nowMilliseconds
        for case let (token, .failed(_, failure), envelope?) in sent {
            guard let outbox, let next = outbox.firstRetry(after: lane.advice(failure), nowMs: nowMs) else { continue }
            let message = HapiOutboxMessage(lane: lane, namespace: namespace, envelope: envelope, collapseId: collapseId, level: level)
            tally.owed.append(OutboxEntry(kind: .hapi, token: token, eventId: eventId, message: message.json, createdAtMs: nowMs,
                                          nextAttemptAtMs: next))
        }
        return tally
    }

    /// Sends envelopes again from the outbox (kind `hapi`), each by its lane's current route; a device whose
    /// row is gone, or whose lane is off now, is owed nothing.
    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome] {
        var outcomes: [Int64: TokenOutcome] = [:]
        var namespaces: [String: Set<String>] = [:]
        var sends: [(entry: OutboxEntry, message: HapiOutboxMessage, sender: any HapiEnvelopeSender)] = []
        for entry in entries {
            guard let message = HapiOutboxMessage(json: entry.message), let sender = sender(for: message.lane) else {
                outcomes[entry.id] = .failed(.never)
                continue
            }
            if namespaces[message.namespace] == nil, let devices = try? await store.hapiDevices(namespace: message.namespace) {
                namespaces[message.namespace] = Set(devices.map(\.token))
            }
            // Unreadable now: no outcome, so the entry waits for the next round.
            guard let tokens = namespaces[message.namespace] else { continue }
            if tokens.contains(entry.token) {
                sends.append((entry, message, sender))
            } else {
                outcomes[entry.id] = .failed(.never)
            }
        }
        let results = await forEachConcurrently(sends, limit: Self.concurrency) { send in
            (send, await send.sender.send(token: send.entry.token, envelope: send.message.envelope, collapseId: send.message.collapseId,
                                          level: send.message.level))
        }
        for (send, outcome) in results {
            switch outcome {
            case .sent: outcomes[send.entry.id] = .accepted
            case .dead:
                outcomes[send.entry.id] = .dropped
                do {
                    try await store.deleteHapiDevices(namespace: send.message.namespace, token: send.entry.token)
                } catch {
                    logger.error("a dead hapi device could not be deleted from host.sqlite; it is tried again", ["error": "\(error)"])
                }
            case .failed(_, let failure): outcomes[send.entry.id] = .failed(send.message.lane.advice(failure))
            }
        }
        return outcomes
    }

    /// The encrypted route of a lane, when it has one now.
    private func sender(for lane: HapiOutboxMessage.Lane) -> (any HapiEnvelopeSender)? {
        switch (lane, android, ios) {
        case (.android, .encrypted(let sender), _), (.ios, _, .encrypted(let sender)): sender
        default: nil
        }
    }

    /// Counts the outcomes and deletes the rows of dead tokens.
    private func apply(_ outcomes: [(String, HapiPushOutcome)], namespace: String) async throws -> HapiTally {
        var tally = HapiTally()
        for (token, outcome) in outcomes {
            switch outcome {
            case .sent: tally.sent += 1
            case .failed: tally.failed += 1
            case .dead:
                tally.dead += 1
                do {
                    try await store.deleteHapiDevices(namespace: namespace, token: token)
                } catch {
                    logger.error("a dead hapi device could not be deleted from host.sqlite; it is tried again", ["error": "\(error)"])
                }
            }
        }
        return tally
    }
}

/// How many device sends of one dispatch ended in each outcome.
struct HapiTally: Equatable {
    var sent = 0
    var failed = 0
    var dead = 0
    /// Of `failed`: devices not sent to because even the minimal plaintext was too large.
    var oversized = 0
    /// Of `failed`: the envelopes to send again from the outbox.
    var owed: [OutboxEntry] = []

    static func += (lhs: inout HapiTally, rhs: HapiTally) {
        lhs.sent += rhs.sent
        lhs.failed += rhs.failed
        lhs.dead += rhs.dead
        lhs.oversized += rhs.oversized
        lhs.owed += rhs.owed
    }
}
