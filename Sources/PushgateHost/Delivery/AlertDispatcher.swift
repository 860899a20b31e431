import PushgateCore

/// Sends one event to every registered alert token: badge, composition, registration,
/// batches, and local clean-up of dead tokens.
///
/// - Important: protocol/host-api.md §4 and §5 — each push adds its tag to the persisted badge set and
///   carries the set's size; a failed batch does not stop the others; `drop` deletes locally.
public final class AlertDispatcher: Sendable {
    private let store: HostStore
    private let routes: AlertRoutes
    private let composer: AlertComposer
    private let clock: any WallClock
    /// Where pushes that failed for a passing reason wait; nil: nothing is kept.
    private let outbox: HostOutbox?
    private let logger: Logger
    /// Outcomes of recent delivery rounds per platform, for the status route.
    let health: [AlertToken.Platform: TransportHealth]

    /// `PUSHGATE_DISMISS_MODE`.
    private let dismissMode: DismissMode

    public init(store: HostStore, routes: AlertRoutes, composer: AlertComposer, clock: any WallClock,
                outbox: HostOutbox? = nil, dismissMode: DismissMode = .banner, logger: Logger) {
        self.store = store
        self.dismissMode = dismissMode
        health = Dictionary(uniqueKeysWithValues: AlertToken.Platform.allCases.map { ($0, TransportHealth(clock: clock)) })
        self.routes = routes
        self.composer = composer
        self.clock = clock
        self.outbox = outbox
        self.logger = logger.named("dispatch")
    }

    /// The name of the transport that carries `platform`'s tokens, `off` when none does.
    public func transportName(_ platform: AlertToken.Platform) -> String { routes.transport(for: platform)?.name ?? "off" }

    /// The sender of the outbox's alert entries; nil when no platform has a transport.
    var outboxSender: AlertOutboxSender? {
        routes.platforms.isEmpty ? nil : AlertOutboxSender(store: store, routes: routes, logger: logger)
    }

    /// Sends `event` to every alert token (only those in `only`, when given: a hub's retry of an
    /// event answered 503). The result's `owed` holds the outbox entries of the pushes worth
    /// sending again; the caller writes them.
    public func dispatch(_ event: HostEvent, only: Set<String>? = nil) async -> DispatchResult {
        do {
            if event.type == .resolved { return try await resolve(event, only: only) }
            return try await send(event, only: only, tag: NotificationTag.make(for: event), countsInBadge: true)
        } catch {
            // Nothing was sent: the hub is asked to post the event again (503, docs/host.md "Outbox").
            logger.error("dispatch failed on the host store; check the disk and host.sqlite", ["error": "\(error)"])
            var result = DispatchResult(eventId: event.eventId, badge: (try? await store.badgeCount()) ?? 0)
            result.storeUnavailable = true
            return result
        }
    }

    /// Replaces each prompt `event` resolves by a passive alert under its tag, carrying the
    /// badge without it; with `PUSHGATE_DISMISS_MODE=background`, then a background push listing
    /// the collapse ids resolved in the last 24 h (docs/host.md, "Dismissal"). A prompt never
    /// pushed, or resolved before, sends nothing.
    private func resolve(_ event: HostEvent, only: Set<String>?) async throws -> DispatchResult {
        let resolution = try await store.resolvePrompts(sessionId: event.sessionId, requestId: event.requestId, eventId: event.eventId)
        var result = DispatchResult(eventId: event.eventId, badge: resolution.badge)
        for prompt in resolution.prompts {
            // The replacement names the prompt it replaces, whatever the `resolved` event named.
            var replacement = event
            replacement.requestId = prompt.requestId
            let replaced = try await send(replacement, only: only, tag: prompt.tag, countsInBadge: false)
            result.accepted += replaced.accepted
            result.failed += replaced.failed
            result.dropped += replaced.dropped
            result.owed += replaced.owed
        }
        if dismissMode == .background, !resolution.prompts.isEmpty {
            await dismiss(resolution.recentlyResolved, only: only)
        }
        return result
    }

    /// The background dismissal: best effort, never queued — the next one lists these ids again.
    private func dismiss(_ collapseIds: [String], only: Set<String>?) async {
        guard var (tokens, _) = try? await store.beginAlertRound(tag: nil, platforms: routes.platforms) else { return }
        if let only { tokens.removeAll { !only.contains($0.token) } }
        let batches = composer.dismissals(collapseIds, tokens: tokens)
        let sent = await routes.deliver(batches, tokens: tokens)
        let accepted = sent.reduce(0) { $0 + $1.outcomes.values.filter { $0 == .accepted }.count }
        logger.info("background dismissal sent", ["collapseIds": "\(collapseIds.count)", "accepted": "\(accepted)"])
    }

    /// One round of `event` under `tag`; `countsInBadge`: the tag joins the badge set (a
    /// replacement does not). A prompt is remembered for a later `resolved`.
    private func send(_ event: HostEvent, only: Set<String>?, tag: String, countsInBadge: Bool) async throws -> DispatchResult {
        let platforms = routes.platforms
        var (tokens, badge) = try await store.beginAlertRound(tag: platforms.isEmpty || !countsInBadge ? nil : tag,
                                                              platforms: platforms)
        if let only { tokens.removeAll { !only.contains($0.token) } }
        guard !tokens.isEmpty else { return DispatchResult(eventId: event.eventId, badge: badge) }
        if event.type.isPrompt {
            try await store.recordPrompt(tag: tag, sessionId: event.sessionId, requestId: event.requestId)
        } else if event.type.sharesTagWithPrompt {
            try await store.forgetPrompt(tag: tag)
        }
        var result = DispatchResult(eventId: event.eventId, badge: badge)
        let sent = await routes.deliver(composer.batches(for: event, tokens: tokens, badge: badge, tag: tag), tokens: tokens)
        let nowMs = clock.nowMilliseconds
        var tally: [AlertToken.Platform: (accepted: Int, failed: Int)] = [:]
        for (_, batch, outcomes) in sent {
            for token in batch.tokens {
                let platform: AlertToken.Platform = batch.androidTokens.contains(token) ? .android : .ios
                // A token whose registration failed was not sent: it is tried again, registration first.
                switch outcomes[token] ?? .failed(.later) {
                case .accepted:
                    result.accepted += 1
                    tally[platform, default: (0, 0)].accepted += 1
                case .failed(let advice):
                    result.failed += 1
                    tally[platform, default: (0, 0)].failed += 1
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
        for (platform, counts) in tally { health[platform]?.record(accepted: counts.accepted, failed: counts.failed) }
        logger.info("event dispatched", ["type": event.type.rawValue, "transport": routes.name, "accepted": "\(result.accepted)",
                                         "failed": "\(result.failed)", "dropped": "\(result.dropped)", "badge": "\(badge)"])
        return result
    }
}
