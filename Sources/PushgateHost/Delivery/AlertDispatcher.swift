import PushgateCore

/// Sends one event to every registered alert token: badge, composition, registration,
/// batches, and local clean-up of dead tokens.
///
/// - Important: host.md §4 and §5 — each push adds its tag to the persisted badge set and
///   carries the set's size; a failed batch does not stop the others; `drop` deletes locally.
public final class AlertDispatcher: Sendable {
    private let store: HostStore
    private let transport: (any AlertTransport)?
    private let composer: AlertComposer
    private let clock: any WallClock
    /// Where pushes that failed for a passing reason wait; nil: nothing is kept.
    private let outbox: HostOutbox?
    private let logger: Logger
    /// Outcomes of recent delivery rounds, for the status route.
    let health: TransportHealth

    /// `transport` is nil when iOS push is off.
    public init(store: HostStore, transport: (any AlertTransport)?, composer: AlertComposer, clock: any WallClock,
                outbox: HostOutbox? = nil, logger: Logger) {
        self.store = store
        health = TransportHealth(clock: clock)
        self.transport = transport
        self.composer = composer
        self.clock = clock
        self.outbox = outbox
        self.logger = logger.named("dispatch")
    }

    public var transportName: String { transport?.name ?? "off" }

    /// The sender of the outbox's alert entries; nil when iOS push is off.
    var outboxSender: AlertOutboxSender? { transport.map { AlertOutboxSender(store: store, transport: $0, logger: logger) } }

    /// Sends `event` to every alert token (only those in `only`, when given: a hub's retry of an
    /// event answered 503). The result's `owed` holds the outbox entries of the pushes worth
    /// sending again; the caller writes them.
    public func dispatch(_ event: HostEvent, only: Set<String>? = nil) async -> DispatchResult {
        do {
            return try await send(event, only: only)
        } catch {
            // Nothing was sent: the hub is asked to post the event again (503, docs/host.md "Outbox").
            logger.error("dispatch failed on the host store; check the disk and host.sqlite", ["error": "\(error)"])
            var result = DispatchResult(eventId: event.eventId, badge: (try? await store.badgeCount()) ?? 0)
            result.storeUnavailable = true
            return result
        }
    }

    private func send(_ event: HostEvent, only: Set<String>?) async throws -> DispatchResult {
        let tag = NotificationTag.make(for: event)
        var (tokens, badge) = try await store.beginAlertRound(tag: transport == nil ? nil : tag)
        if let only { tokens.removeAll { !only.contains($0.token) } }
        guard let transport, !tokens.isEmpty else { return DispatchResult(eventId: event.eventId, badge: badge) }
        var result = DispatchResult(eventId: event.eventId, badge: badge)
        let ready = await transport.prepare(tokens.map(\.token))
        let batches = composer.batches(for: event, tokens: tokens, badge: badge, tag: tag)
        let sent = await forEachConcurrently(batches, limit: 4) { batch -> (AlertBatch, [String: TokenOutcome]) in
            var registered = batch
            registered.tokens.removeAll { !ready.contains($0) }
            return (batch, registered.tokens.isEmpty ? [:] : await transport.deliver(registered))
        }
        let nowMs = clock.nowMilliseconds
        for (batch, outcomes) in sent {
            for token in batch.tokens {
                // A token whose registration failed was not sent: it is tried again, registration first.
                switch outcomes[token] ?? .failed(.later) {
                case .accepted: result.accepted += 1
                case .failed(let advice):
                    result.failed += 1
                    if let next = outbox?.firstRetry(after: advice, nowMs: nowMs) {
                        result.owed.append(AlertOutboxSender.entry(batch, token: token, nowMs: nowMs, nextAttemptAtMs: next))
                    }
                case .dropped:
                    result.dropped += 1
                    do {
                        try await store.deleteAlertToken(token)
                    } catch {
                        logger.error("a dead token could not be deleted from host.sqlite; it is tried again", ["error": "\(error)"])
                    }
                }
            }
        }
        health.record(accepted: result.accepted, failed: result.failed)
        logger.info("event dispatched", ["type": event.type.rawValue, "transport": transport.name, "accepted": "\(result.accepted)",
                                         "failed": "\(result.failed)", "dropped": "\(result.dropped)", "badge": "\(badge)"])
        return result
    }
}
