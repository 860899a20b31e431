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
    private let logger: Logger
    /// Outcomes of recent delivery rounds, for the status route.
    let health: TransportHealth

    /// `transport` is nil when iOS push is off.
    public init(store: HostStore, transport: (any AlertTransport)?, composer: AlertComposer, clock: any WallClock,
                logger: Logger) {
        self.store = store
        health = TransportHealth(clock: clock)
        self.transport = transport
        self.composer = composer
        self.logger = logger.named("dispatch")
    }

    public var transportName: String { transport?.name ?? "off" }

    public func dispatch(_ event: HostEvent) async -> DispatchResult {
        do {
            return try await send(event)
        } catch {
            logger.error("dispatch failed on the host store; check the disk and host.sqlite", ["error": "\(error)"])
            return DispatchResult(eventId: event.eventId, badge: (try? await store.badgeCount()) ?? 0)
        }
    }

    private func send(_ event: HostEvent) async throws -> DispatchResult {
        let tag = NotificationTag.make(for: event)
        let (tokens, badge) = try await store.beginAlertRound(tag: transport == nil ? nil : tag)
        guard let transport, !tokens.isEmpty else { return DispatchResult(eventId: event.eventId, badge: badge) }
        var result = DispatchResult(eventId: event.eventId, badge: badge)
        let ready = await transport.prepare(tokens.map(\.token))
        result.failed = tokens.count - tokens.filter { ready.contains($0.token) }.count
        let batches = composer.batches(for: event, tokens: tokens.filter { ready.contains($0.token) }, badge: badge, tag: tag)
        let outcomes = await forEachConcurrently(batches, limit: 4) { batch in await transport.deliver(batch) }
        for outcome in outcomes.flatMap(\.self) {
            switch outcome.value {
            case .accepted: result.accepted += 1
            case .failed: result.failed += 1
            case .dropped:
                result.dropped += 1
                try await store.deleteAlertToken(outcome.key)
            }
        }
        health.record(accepted: result.accepted, failed: result.failed)
        logger.info("event dispatched", ["type": event.type.rawValue, "transport": transport.name, "accepted": "\(result.accepted)",
                                         "failed": "\(result.failed)", "dropped": "\(result.dropped)", "badge": "\(badge)"])
        return result
    }
}
