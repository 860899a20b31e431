import PushgateCore
import Synchronization

/// Live Activities on the host: registrations, session states, the pushes that session ends,
/// attention events and refresh ticks cause, and token expiry. Every change to the tokens runs
/// as one of a series of ordered jobs, so two pushes never start from the same rows; relay calls that change
/// no rows (registration, unregistration) run beside it.
///
/// - Important: protocol/host-api.md §6 — one token per (client, activity), the old one unregistered; at
///   most 8 per client; 24 h expiry; `eventVersion` persisted per session and for `live`;
///   removal after an accepted `end`, the token kept after a failed one, `drop` removes it.
///   §7 — the refresh tick and the expiry sweep run on the scheduler; overlapping ticks are
///   dropped, never queued; an interval of 0 schedules no tick.
public final class LiveActivityEngine: Sendable {
    /// `PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS` when unset or invalid.
    public static let defaultRefreshIntervalMs: Int64 = 30_000
    public static let maxTokensPerClient = 8
    /// A token not registered again for this long expires.
    public static let tokenLifetimeMs: Int64 = 24 * 60 * 60 * 1_000
    /// How often expired tokens are looked for.
    public static let expirySweepMs: Int64 = 60_000
    /// A push-to-start token not registered again for this long expires: the app hands it over at
    /// every launch, and a device unused for a month should not cost a relay binding.
    public static let startTokenLifetimeMs: Int64 = 30 * 24 * 60 * 60 * 1_000
    /// The event-version id of an activity as a whole (refresh ticks).
    public static let aggregateVersionId = "live"
    /// The most requests in flight at once.
    static let requestConcurrency = 4

    public let store: LiveActivityStore
    public let refreshIntervalMs: Int64
    private let transport: (any LiveActivityTransport)?
    /// Where `end` pushes that failed for a passing reason are sent again; nil: the tick retries them.
    private let outbox: HostOutbox?
    private let scheduler: any Scheduler
    private let logger: Logger
    private let starter: LiveActivityStarter
    /// Priority-10 pushes per activity within the hour.
    private let budget: LiveActivityPriorityBudget
    /// Changes, ticks and sweeps, one at a time in the order they came.
    private let lane: OrderedJobs
    private let states = Mutex<[String: SessionState]>([:])
    private let jobs = Mutex<[any ScheduledJob]>([])
    private let ticking = Atomic<Bool>(false)
    private let droppedTickCount = Atomic<Int>(0)

    /// `transport` is nil when iOS push is off or no relay is configured: registrations are
    /// kept, nothing is sent, no tick is scheduled.
    public init(store: LiveActivityStore, transport: (any LiveActivityTransport)?, outbox: HostOutbox? = nil, scheduler: any Scheduler,
                refreshIntervalMs: Int64, policy: LiveActivityPolicy = LiveActivityPolicy(), logger: Logger) {
        self.store = store
        starter = LiveActivityStarter(attributesType: policy.attributesType, cooldownMs: policy.startCooldownMs)
        budget = LiveActivityPriorityBudget(perHour: policy.highPriorityPerHour)
        lane = OrderedJobs(executor: store.database.executor)
        self.transport = transport
        self.outbox = outbox
        self.scheduler = scheduler
        self.refreshIntervalMs = refreshIntervalMs
        self.logger = logger.named("live-activity")
    }

    // MARK: Life cycle

    /// Loads the tokens and schedules the refresh tick (unless the interval is 0) and the expiry sweep.
    public func start() async throws {
        _ = try await store.all()
        var started: [any ScheduledJob] = []
        if transport != nil && refreshIntervalMs > 0 {
            started.append(scheduler.scheduleRepeating(everyMs: refreshIntervalMs) { [weak self] in self?.startTick() })
        }
        started.append(scheduler.scheduleRepeating(everyMs: Self.expirySweepMs) { [weak self] in self?.startExpiry() })
        jobs.withLock { $0 += started }
    }

    /// Cancels the scheduled jobs and waits for work under way.
    public func stop() async {
        let cancelled = jobs.withLock { jobs in
            defer { jobs = [] }
            return jobs
        }
        for job in cancelled { job.cancel() }
        await lane.drain()
    }

    /// Returns once every change and tick started so far has finished.
    public func waitUntilIdle() async { await lane.drain() }

    /// Ticks dropped because the one before was still running.
    var droppedTicks: Int { droppedTickCount.load(ordering: .relaxed) }

    // MARK: Phone-facing

    /// Stores or refreshes a token; registers it on the relay (always: the phone's registration
    /// refreshes the binding) and unregisters the token it replaced and those evicted.
    public func register(_ registration: LiveActivityRegistration) async throws -> LiveActivityStore.RegistrationOutcome {
        let outcome = try await lane.run {
            let nowMs = self.scheduler.clock.nowMilliseconds
            return try await self.store.register(registration, defaultRows: self.initialRows(registration.sessionId, nowMs: nowMs),
                                                 maxPerClient: Self.maxTokensPerClient, nowMs: nowMs)
        }
        guard case .stored(let replaced, let evicted) = outcome, let transport else { return outcome }
        await transport.bind(registration.token, kind: .activity)
        for token in [replaced].compactMap({ $0 }) + evicted { await transport.unbind(token, kind: .activity) }
        return outcome
    }

    /// Removes a token (only for the client that registered it) and unregisters it on the relay.
    public func remove(_ removal: LiveActivityRemoval) async throws -> LiveActivityStore.RemovalOutcome {
        let outcome: LiveActivityStore.RemovalOutcome
        switch removal {
        case .token(let token, let client): outcome = try await lane.run { try await self.store.remove(token: token, client: client) }
        case .activity(let activityId, let client):
            outcome = try await lane.run { try await self.store.remove(activityId: activityId, client: client) }
        case .startToken(let token, let client): return try await removeStart(token: token, client: client)
        }
        if case .removed(let token) = outcome { await transport?.unbind(token, kind: .activity) }
        return outcome
    }

    /// Stores or refreshes a device's push-to-start token and registers it on the relay; the
    /// device's previous token is unregistered. The store changes in the series of jobs, as a
    /// start reads it: a start under way finishes with the old token before it is unbound, and
    /// never binds it again afterwards.
    public func registerStart(_ registration: LiveActivityStartRegistration) async throws -> LiveActivityStore.StartRegistrationOutcome {
        let outcome = try await lane.run {
            try await self.store.registerStart(registration, nowMs: self.scheduler.clock.nowMilliseconds)
        }
        guard case .stored(let replaced) = outcome, let transport else { return outcome }
        await transport.bind(registration.token, kind: .start)
        if let replaced { await transport.unbind(replaced, kind: .start) }
        return outcome
    }

    /// Removes a push-to-start token (only for the client that registered it) and unregisters
    /// it, after any start under way (as ``registerStart(_:)``).
    public func removeStart(token: String, client: String) async throws -> LiveActivityStore.RemovalOutcome {
        let outcome = try await lane.run { try await self.store.removeStart(token: token, client: client) }
        if case .removed(let token) = outcome { await transport?.unbind(token, kind: .start) }
        return outcome
    }

    /// Re-registers every token on the relay, push-to-start tokens included (after an identity
    /// rotation or a relay switch).
    public func reregisterAll() async throws -> (registered: Int, total: Int) {
        let tokens = try await store.all().map(\.token)
        let startTokens = try await store.startTokens().map(\.token)
        guard let transport else { return (0, tokens.count + startTokens.count) }
        return (await transport.prepare(tokens, kind: .activity).count + transport.prepare(startTokens, kind: .start).count,
                tokens.count + startTokens.count)
    }

    /// `/api/status`'s `liveActivityPriority`: the priority budget's counts of the last hour.
    public func priorityStatus() -> JSONValue { budget.status(nowMs: scheduler.clock.nowMilliseconds) }

    // MARK: Hub-facing

    /// Records a session's state; `idle`/`error` of a top-level session settles its row on every
    /// token that shows it and pushes at once (`end` when no row is still working). A top-level
    /// session that turns busy (unknown or settled before) starts an activity on every device
    /// that has a push-to-start token and shows none.
    ///
    /// - Important: protocol/host-api.md §6 — independent of notification settings and visibility.
    public func updateSession(_ update: SessionStateUpdate) async throws -> LiveActivityDelivery {
        let previous = states.withLock { states in
            let known = states[update.sessionId]
            var state = update.state
            if let known { state.firstSeenMs = known.firstSeenMs }
            states[update.sessionId] = state
            return known
        }
        let turnedBusy = update.state.status == .busy && previous.map { $0.status.settledRowStatus != nil } ?? true
        if update.state.isTopLevel, turnedBusy, transport != nil {
            return try await lane.run { try await self.startActivities(sessionId: update.sessionId, title: update.state.title) }
        }
        guard update.state.isTopLevel, let settled = update.state.status.settledRowStatus else { return LiveActivityDelivery() }
        return try await lane.run {
            try await self.pushChanges(versionIds: [update.sessionId, Self.aggregateVersionId], provided: update.eventVersion,
                                       endedSession: update.sessionId) { record, now in
                LiveActivityRowRules.ended(record.rows, sessionId: update.sessionId, status: settled, title: update.state.title,
                                           nowSeconds: now)
            }
        }
    }

    /// A `permission` or `question` event of a top-level session: its working rows show
    /// `permission` or `input` (pushed at priority 10). Queued without waiting, so the event's
    /// alert never waits for Live Activity pushes; nil for other event types and for child or
    /// system sessions.
    @discardableResult
    public func noteAttention(_ event: HostEvent) -> Task<LiveActivityDelivery, any Error>? {
        guard event.parentSessionId == nil, !event.system, let status = Self.attentionStatus(event.type) else { return nil }
        return lane.submit {
            do {
                return try await self.pushChanges(versionIds: [event.sessionId, Self.aggregateVersionId], provided: nil,
                                                  endedSession: nil) { record, _ in
                    LiveActivityRowRules.marked(record.rows, sessionId: event.sessionId, status: status)
                }
            } catch {
                self.logger.error("Live Activity update for an event failed; check host.sqlite", ["error": "\(error)"])
                throw error
            }
        }
    }

    /// The row status an event type asks for: `permission` → `permission`, `question` → `input`.
    static func attentionStatus(_ type: EventType) -> LiveActivityStatus? {
        switch type {
        case .permission: .permission
        case .question: .input
        default: nil
        }
    }

    // MARK: Scheduled work

    /// Starts a refresh tick, unless the previous one is still running: then this one is
    /// dropped (nil), never queued.
    @discardableResult
    public func startTick() -> Task<LiveActivityDelivery, any Error>? {
        guard ticking.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            droppedTickCount.add(1, ordering: .relaxed)
            logger.debug("refresh tick dropped: the previous one is still running")
            return nil
        }
        return lane.submit {
            defer { self.ticking.store(false, ordering: .releasing) }
            do {
                return try await self.refresh()
            } catch {
                self.logger.error("Live Activity refresh tick failed; check host.sqlite", ["error": "\(error)"])
                throw error
            }
        }
    }

    /// One tick: one snapshot of the session states, every token's rows recomputed, a push for
    /// each token whose rows changed (none at all when nothing changed).
    private func refresh() async throws -> LiveActivityDelivery {
        let records = try await store.all()
        guard !records.isEmpty else {
            logger.debug("refresh tick", ["tokens": "0", "changed": "0"])
            return LiveActivityDelivery()
        }
        let snapshot = states.withLock { $0 }
        let nowMs = scheduler.clock.nowMilliseconds
        let now = Double(nowMs) / 1_000
        let candidates = LiveActivityRowRules.candidates(snapshot, nowSeconds: now)
        var changes: [Change] = []
        for index in records.indices {
            let rows = LiveActivityRowRules.refreshed(records[index].rows, states: snapshot, candidates: candidates, nowSeconds: now)
            if let content = LiveActivityContent(previous: records[index].rows, next: rows) {
                changes.append(Change(record: records[index], content: content))
            }
        }
        logger.debug("refresh tick", ["tokens": "\(records.count)", "changed": "\(changes.count)"])
        return try await push(changes, versionIds: [Self.aggregateVersionId], provided: nil, nowMs: nowMs)
    }

    private func startExpiry() {
        lane.submit {
            do {
                try await self.expire()
            } catch {
                self.logger.error("Live Activity token expiry failed; check host.sqlite", ["error": "\(error)"])
            }
        }
    }

    /// Removes tokens not seen for a day (unregistered on the relay) and forgets settled session
    /// states as old.
    private func expire() async throws {
        let nowMs = scheduler.clock.nowMilliseconds
        states.withLock { states in
            states = states.filter { $0.value.status.settledRowStatus == nil || nowMs - $0.value.updatedAtMs < Self.tokenLifetimeMs }
        }
        budget.purge(nowMs: nowMs)
        let expired = try await store.expire(notSeenSince: nowMs - Self.tokenLifetimeMs)
        if !expired.isEmpty {
            logger.info("Live Activity tokens expired after a day without a registration", ["tokens": "\(expired.count)"])
            for token in expired { await transport?.unbind(token, kind: .activity) }
        }
        let expiredStarts = try await store.expireStart(notSeenSince: nowMs - Self.startTokenLifetimeMs)
        guard !expiredStarts.isEmpty else { return }
        logger.info("push-to-start tokens expired after 30 days without a registration", ["tokens": "\(expiredStarts.count)"])
        for token in expiredStarts { await transport?.unbind(token, kind: .start) }
    }

    // MARK: Starting

    /// Starts an activity showing `sessionId` on every device whose push-to-start token is due
    /// (``LiveActivityStarter/due(_:showing:nowMs:)``). An accepted start dates the device's
    /// cooldown; a dead token is removed; a failed start is not queued (the session's next turn
    /// to busy tries again).
    private func startActivities(sessionId: String, title: String?) async throws -> LiveActivityDelivery {
        guard let transport else { return LiveActivityDelivery() }
        let nowMs = scheduler.clock.nowMilliseconds
        let showing = Set(try await store.all().compactMap(\.client))
        let due = starter.due(try await store.startTokens(), showing: showing, nowMs: nowMs)
        guard !due.isEmpty else { return LiveActivityDelivery() }
        let version = try await store.nextEventVersion(ids: [sessionId, Self.aggregateVersionId], provided: nil, nowMs: nowMs)
        let starter = starter
        let outcomes = await forEachConcurrently(due, limit: Self.requestConcurrency) { token -> (LiveActivityStartToken, TokenOutcome) in
            guard let built = try? starter.start(token: token.token, sessionId: sessionId, title: title,
                                                 eventVersion: version, nowMs: nowMs) else { return (token, .failed(.never)) }
            return (token, await transport.start(built.push, start: built.start, environment: token.environment))
        }
        var delivery = LiveActivityDelivery(requests: outcomes.count)
        var dead: [String] = []
        for (token, outcome) in outcomes {
            switch outcome {
            case .accepted:
                delivery.accepted += 1
                try await store.markStarted(client: token.client, nowMs: nowMs)
            case .dropped:
                delivery.dropped += 1
                dead.append(token.token)
            case .failed:
                delivery.failed += 1
            }
        }
        try await store.removeStart(tokens: dead)
        await transport.forget(dead, kind: .start)
        logger.info("Live Activity starts sent", ["transport": transport.name, "requests": "\(delivery.requests)",
                                                  "accepted": "\(delivery.accepted)", "failed": "\(delivery.failed)",
                                                  "dropped": "\(delivery.dropped)", "eventVersion": "\(version)"])
        return delivery
    }

    // MARK: Pushing

    private struct Change: Sendable {
        let record: LiveActivityRecord
        let content: LiveActivityContent
    }

    private struct Batch: Sendable {
        let push: LiveActivityPush
        let environment: String
        let content: LiveActivityContent
        /// The content's priority after the budget (``LiveActivityPriorityBudget``).
        let priority: Int
    }

    /// Applies `rows` to every token that shows something and pushes those that changed.
    private func pushChanges(versionIds: [String], provided: Int64?, endedSession: String?,
                             _ rows: (LiveActivityRecord, Double) -> [LiveActivityItem]) async throws -> LiveActivityDelivery {
        let nowMs = scheduler.clock.nowMilliseconds
        let changes = try await store.all().compactMap { record in
            LiveActivityContent(previous: record.rows, next: rows(record, Double(nowMs) / 1_000), endedSession: endedSession)
                .map { Change(record: record, content: $0) }
        }
        return try await push(changes, versionIds: versionIds, provided: provided, nowMs: nowMs)
    }

    /// Sends the changes, tokens that show the same sharing a request (at most 100 each), and
    /// keeps the rows of accepted updates; accepted ends and dropped tokens are removed, failed
    /// ones keep their old rows so the next change or tick tries again. An end that failed for a
    /// passing reason goes to the outbox and its token is removed as after an accepted end (one
    /// retry mechanism per push: the tick for updates, the outbox for ends).
    private func push(_ changes: [Change], versionIds: [String], provided: Int64?, nowMs: Int64) async throws -> LiveActivityDelivery {
        guard let transport, !changes.isEmpty else { return LiveActivityDelivery() }
        let version = try await store.nextEventVersion(ids: versionIds, provided: provided, nowMs: nowMs)
        let ready = await transport.prepare(changes.map(\.record.token), kind: .activity)
        var delivery = LiveActivityDelivery(failed: changes.filter { !ready.contains($0.record.token) }.count)
        var groups: [String: [(change: Change, priority: Int)]] = [:]
        var order: [String] = []
        for change in changes where ready.contains(change.record.token) {
            let priority = budget.priority(of: change.content, activity: Self.budgetKey(change.record), nowMs: nowMs)
            let key = change.record.environment + "\u{0}" + change.content.groupKey + "\u{0}\(priority)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((change, priority))
        }
        var batches: [Batch] = []
        for key in order {
            let members = groups[key] ?? []
            for start in stride(from: 0, to: members.count, by: LiveActivityPush.tokenCount.upperBound) {
                let tokens = members[start..<min(start + LiveActivityPush.tokenCount.upperBound, members.count)].map(\.change.record.token)
                let (first, priority) = members[start]
                batches.append(Batch(push: try first.content.push(tokens: tokens, eventVersion: version, nowMs: nowMs),
                                     environment: first.record.environment, content: first.content, priority: priority))
            }
        }
        let results = await forEachConcurrently(batches, limit: Self.requestConcurrency) { batch in
            (batch, await transport.deliver(batch.push, environment: batch.environment, priority: batch.priority))
        }
        var kept: [(token: String, rows: [LiveActivityItem])] = []
        var removed: [String] = []
        var owedEnds: [OutboxEntry] = []
        let afterMs = scheduler.clock.nowMilliseconds
        for (batch, outcomes) in results {
            delivery.requests += 1
            for token in batch.push.tokens {
                switch outcomes[token] ?? .failed(.later) {
                case .accepted:
                    delivery.accepted += 1
                    // After an accepted end the activity is over; the relay has unbound the token too.
                    if batch.content.event == .end { removed.append(token) } else { kept.append((token, batch.content.rows)) }
                case .dropped:
                    delivery.dropped += 1
                    removed.append(token)
                case .failed(let advice):
                    delivery.failed += 1
                    if batch.content.event == .end, let next = outbox?.firstRetry(after: advice, nowMs: afterMs) {
                        owedEnds.append(LiveActivityEndSender.entry(batch.push, token: token, environment: batch.environment,
                                                                    priority: batch.content.priority, nowMs: afterMs,
                                                                    nextAttemptAtMs: next))
                    }
                }
            }
        }
        if let outbox, !owedEnds.isEmpty {
            do {
                try await outbox.enqueue(owedEnds)
                delivery.queued = owedEnds.count
                removed += owedEnds.map(\.token)
            } catch {
                logger.error("the outbox could not be written; failed Live Activity ends are tried again on the next tick",
                             ["error": "\(error)"])
            }
        }
        try await store.save(rows: kept)
        try await store.remove(tokens: removed)
        // A queued end still needs its relay binding; the outbox forgets it once the end is over.
        let queuedEnds = Set(owedEnds.map(\.token))
        await transport.forget(removed.filter { !queuedEnds.contains($0) }, kind: .activity)
        logger.info("Live Activity pushes sent", ["transport": transport.name, "requests": "\(delivery.requests)",
                                                  "accepted": "\(delivery.accepted)", "failed": "\(delivery.failed)",
                                                  "dropped": "\(delivery.dropped)", "eventVersion": "\(version)"])
        return delivery
    }

    /// The activity a token's priority-10 pushes are counted for: its activity id, or for a token
    /// without one (an import) the token's redacted form, which `/api/status` may show.
    private static func budgetKey(_ record: LiveActivityRecord) -> String {
        record.activityId ?? "token:" + Redact.token(record.token)
    }

    /// The row a token shows when the phone sent none: its session, as the hub last described it.
    private func initialRows(_ sessionId: String, nowMs: Int64) -> [LiveActivityItem] {
        let state = states.withLock { $0[sessionId] }
        let now = Double(nowMs) / 1_000
        let settled = state?.status.settledRowStatus
        let status = settled ?? (state?.status == .retry ? .retry : .working)
        return [try? LiveActivityItem(sessionID: sessionId, title: state?.title ?? "", status: status, startedAt: now,
                                      endedAt: settled == nil ? nil : now)].compactMap { $0 }
    }
}
