import PushgateCore
import PushgateHTTP
import PushgateProviders
import Synchronization

/// The host's logic without HTTP: alert tokens, events through the throttle to the dispatcher,
/// badge clearing, Live Activities, and status. The API and the executable are thin layers over it.
public final class HostService: Sendable {
    public let settings: HostSettings
    public let store: HostStore
    /// The one thread that runs the host API and reads the relay's answers: an event arrives,
    /// waits for the relay and is answered without being handed between threads.
    public let eventLoop: EpollEventLoop
    public let scheduler: any Scheduler
    let dispatcher: AlertDispatcher
    /// The pushes not accepted at once, sent again until their deadline.
    public let outbox: HostOutbox
    /// Dispatch counts since start, for the metrics listener.
    let counters = HostCounters()
    private let unqueued: UnqueuedPushes
    /// Live Activity registrations, session states and their pushes.
    public let liveActivities: LiveActivityEngine
    /// The sessions a desktop shows, whose active and passive alerts are held back.
    let presence: DesktopPresence
    private let relay: RelayTransport?
    private let apnsClient: APNsClient?
    /// The FCM client of Android alert tokens in direct mode.
    private let androidAlertFCM: FCMClient?
    private let logger: Logger
    private let hapi: HapiTransports
    private let webFallback: (any WebFallbackChannel)?
    private let throttle = Mutex<EventThrottle?>(nil)
    private let requestDebounce = Mutex<PendingRequestDebounce?>(nil)
    private let scheduled = Mutex<[Int: Task<Void, Never>]>([:])
    private let nextTaskId = Atomic<Int>(0)

    /// Opens the store and builds the transports the settings ask for; `titles` defaults to the
    /// bundled table; `webFallback` is the embedding application's toast and Web Push (protocol/hapi-push.md §10).
    public init(settings: HostSettings, scheduler: any Scheduler, logger: Logger, titles: NotificationTitles? = nil,
                webFallback: (any WebFallbackChannel)? = nil) throws {
        self.settings = settings
        self.scheduler = scheduler
        self.logger = logger
        self.webFallback = webFallback
        for diagnostic in settings.diagnostics + settings.warnings { logger.warning(diagnostic) }
        // One connection to host.sqlite, on one queue, for every table (docs/host.md, "Store").
        let database = try HostDatabase(path: settings.databasePath)
        store = try HostStore(database: database, clock: scheduler.clock, scheduler: scheduler, logger: logger.named("store"))
        outbox = HostOutbox(store: store, policy: settings.outbox, scheduler: scheduler, logger: logger)
        unqueued = UnqueuedPushes(clock: scheduler.clock)
        let eventLoop = try EpollEventLoop()
        self.eventLoop = eventLoop
        var relay: RelayTransport?
        var apnsClient: APNsClient?
        let transport: (any AlertTransport)?
        var liveActivityTransport: (any LiveActivityTransport)?
        // One relay transport for both platforms: an event's iOS and Android tokens share a send.
        let relayPlatforms = [("iOS", settings.iosPushMode == .relay), ("Android alert", settings.androidAlertPushMode == .relay)]
            .filter(\.1).map(\.0)
        if !relayPlatforms.isEmpty {
            if let url = settings.relayURL {
                let client = SignedRelayClient(baseURL: url, key: settings.signingKey, clock: scheduler.clock, eventLoop: eventLoop)
                relay = RelayTransport(client: client, store: store, clock: scheduler.clock, logger: logger)
                if settings.iosPushMode == .relay {
                    liveActivityTransport = RelayLiveActivityTransport(client: client, store: store, clock: scheduler.clock, logger: logger)
                }
            } else {
                logger.warning("PUSHGATE_PUSH_RELAY_URL is not set; \(relayPlatforms.joined(separator: " and ")) pushes cannot "
                               + "leave this host until it is")
            }
        }
        switch settings.iosPushMode {
        case .relay:
            transport = relay
        case .apns:
            guard let direct = settings.directAPNs else { throw HostSettingsError("apns mode without APNs settings") }
            let client = try APNsClient(configuration: direct.configuration, clock: scheduler.clock, logger: logger)
            apnsClient = client
            transport = DirectAPNsTransport(client: client, bundleId: direct.bundleId, ttlSeconds: settings.apnsTTLSeconds,
                                            clock: scheduler.clock)
            liveActivityTransport = DirectLiveActivityTransport(client: client, bundleId: direct.bundleId,
                                                                ttlSeconds: settings.apnsTTLSeconds, clock: scheduler.clock)
        case .off:
            transport = nil
        }
        var androidAlertFCM: FCMClient?
        let androidTransport: (any AlertTransport)?
        switch (settings.androidAlertPushMode, settings.directFCMAlerts) {
        case (.relay, _):
            androidTransport = relay
        case (.direct, let direct?):
            do {
                let client = try settings.hapi.fcmClient(account: direct.account, clock: scheduler.clock, logger: logger)
                androidAlertFCM = client
                androidTransport = DirectFCMAlertTransport(client: client, settings: direct, ttlSeconds: settings.apnsTTLSeconds)
            } catch {
                logger.warning("Android alert push is off: the FCM endpoints (PUSHGATE_FCM_TOKEN_URI, PUSHGATE_FCM_ORIGIN, "
                               + "PUSHGATE_FCM_CA_FILE) are not usable", ["error": "\(error)"])
                androidTransport = nil
            }
        case (.direct, nil), (.off, _):
            androidTransport = nil
        }
        self.androidAlertFCM = androidAlertFCM
        self.relay = relay
        self.apnsClient = apnsClient
        hapi = HapiTransports(settings: settings, store: store, apnsClient: apnsClient, eventLoop: eventLoop, clock: scheduler.clock,
                              outbox: outbox, logger: logger)
        liveActivities = LiveActivityEngine(store: LiveActivityStore(database: database), transport: liveActivityTransport,
                                            outbox: outbox, scheduler: scheduler, refreshIntervalMs: settings.liveActivityRefreshIntervalMs,
                                            policy: settings.liveActivity, logger: logger)
        presence = DesktopPresence(ttlSeconds: settings.desktopVisibleTTLSeconds, clock: scheduler.clock)
        dispatcher = AlertDispatcher(store: store, routes: AlertRoutes(ios: transport, android: androidTransport),
                                     composer: AlertComposer(titles: try titles ?? NotificationTitles.bundled(),
                                                             timeSensitive: settings.timeSensitive),
                                     clock: scheduler.clock, outbox: outbox, dismissMode: settings.dismissMode, logger: logger)
        if let sender = dispatcher.outboxSender { outbox.register(sender, for: .alert) }
        if hapi.fanout.isEnabled { outbox.register(hapi.fanout, for: .hapi) }
        if let liveActivityTransport { outbox.register(LiveActivityEndSender(transport: liveActivityTransport), for: .liveActivityEnd) }
        let eventThrottle = EventThrottle(scheduler: scheduler) { [weak self] event in self?.dispatchLater(event) }
        throttle.withLock { $0 = eventThrottle }
        let debounce = PendingRequestDebounce(scheduler: scheduler) { [weak self] event in self?.dispatchLater(event) }
        requestDebounce.withLock { $0 = debounce }
    }

    /// Clears registrations cached for another relay URL, so a relay switch re-registers every
    /// token; starts the Live Activity engine's scheduled work and resumes the outbox.
    public func start() async throws {
        try await store.clearRegistrations(except: relay?.relayURL)
        try await liveActivities.start()
        try await outbox.start()
    }

    // MARK: Events

    /// Suppression (child, system, a desktop showing the session), cooldown and debounce, then
    /// dispatch; a `permission` or `question` event
    /// also shows on the session's Live Activity rows. The hub's retry of an event answered 503
    /// `store_unavailable` skips all of that: it was decided the first time, and now only the
    /// devices still owed it are sent it.
    public func handle(_ event: HostEvent) async -> DispatchResult {
        if let owed = unqueued.take(event.eventId) { return await deliver(event, owed: owed, hubRetries: true) }
        liveActivities.noteAttention(event)
        if event.parentSessionId != nil { return await suppressed(event, .child) }
        if event.system { return await suppressed(event, .system) }
        if presence.suppresses(event) { return await suppressed(event, .visible) }
        if event.type == .resolved {
            // A prompt still in its debounce window is never sent (docs/host.md, "Dismissal").
            throttle.withLock({ $0 })!.cancelPrompts(sessionId: event.sessionId, requestId: event.requestId)
            requestDebounce.withLock({ $0 })!.cancel(sessionId: event.sessionId, requestId: event.requestId)
            return await deliver(event, hubRetries: true)
        }
        if event.type == .permission || event.type == .question, event.pendingRequests != nil {
            // protocol/hapi-push.md §9: a pending-request list debounces on new request ids instead.
            let decision = requestDebounce.withLock({ $0 })!.submit(event)
            return DispatchResult(eventId: event.eventId, badge: (try? await store.badgeCount()) ?? 0, pending: decision == .debounced)
        }
        switch throttle.withLock({ $0 })!.submit(event) {
        case .dispatch: return await deliver(event, hubRetries: true)
        case .cooldown: return await suppressed(event, .cooldown)
        case .debounced: return DispatchResult(eventId: event.eventId, badge: (try? await store.badgeCount()) ?? 0, pending: true)
        }
    }

    /// Waits until every dispatch started by a closed debounce window has finished.
    public func waitForScheduledDispatches() async {
        while let task = scheduled.withLock({ $0.values.first }) { await task.value }
    }

    private func dispatchLater(_ event: HostEvent) {
        let id = nextTaskId.add(1, ordering: .relaxed).newValue
        scheduled.withLock { tasks in
            tasks[id] = Task {
                _ = await self.deliver(event, hubRetries: false)
                _ = self.scheduled.withLock { $0.removeValue(forKey: id) }
            }
        }
    }

    /// One dispatch: the encrypted devices (Android, then iOS), the content-free alert tokens,
    /// then the web fallback gated on whether any native send went out (protocol/hapi-push.md §6, §10).
    /// What was not accepted and is worth another try goes to the outbox in one transaction
    /// before the answer (docs/host.md, "Outbox"). `owed`: a hub's retry after a 503, sent only
    /// to those devices and without the web fallback, which the first try ran. `hubRetries`:
    /// whether a hub waits for the answer (not so for a debounce window that closed), so that
    /// what the store could not take is remembered for its retry.
    private func deliver(_ event: HostEvent, owed: UnqueuedPushes.Owed? = nil, hubRetries: Bool) async -> DispatchResult {
        // Composed only for a channel that may use it.
        let payload = hapi.fanout.mayDeliver || webFallback != nil ? HapiComposer.payload(for: event) : nil
        var tally = HapiTally()
        var hapiFailed = false
        if let payload, owed.map({ UnqueuedPushes.Owed.anyOwed($0.hapiTokens) }) ?? true {
            do {
                tally = try await hapi.fanout.deliver(payload, namespace: HapiDeviceRoutes.namespace, eventId: event.eventId,
                                                      only: owed?.hapiTokens,
                                                      level: event.type.attention(timeSensitive: settings.timeSensitive).level)
            } catch {
                hapiFailed = true
                logger.error("hapi dispatch failed on the host store; check the disk and host.sqlite", ["error": "\(error)"])
            }
        }
        var result = owed.map({ UnqueuedPushes.Owed.anyOwed($0.alertTokens) }) ?? true
            ? await dispatcher.dispatch(event, only: owed?.alertTokens)
            : DispatchResult(eventId: event.eventId, badge: (try? await store.badgeCount()) ?? 0)
        let alertsFailed = result.storeUnavailable
        result.accepted += tally.sent
        result.failed += tally.failed
        result.dropped += tally.dead
        result.owed += tally.owed
        result.storeUnavailable = alertsFailed || hapiFailed
        await keepOwed(&result)
        if result.storeUnavailable && hubRetries {
            unqueued.remember(result.owed, eventId: result.eventId, allAlerts: alertsFailed, allHapi: hapiFailed)
        }
        result.owed = []
        counters.record(result)
        if let webFallback, owed == nil, event.type != .resolved {
            let notification = WebFallbackNotification(event: event, payload: payload, namespace: HapiDeviceRoutes.namespace)
            _ = await WebFallbackRouter.run(nativeDelivered: result.nativeDelivered, notification: notification,
                                            channel: webFallback, logger: logger)
        }
        return result
    }

    /// Writes the result's owed pushes to the outbox and counts them as `queued`; when the
    /// store cannot take them, marks the result `storeUnavailable` and keeps them in `owed`.
    private func keepOwed(_ result: inout DispatchResult) async {
        guard !result.owed.isEmpty else { return }
        do {
            result.queued = try await outbox.enqueue(result.owed)
            result.owed = []
        } catch {
            result.storeUnavailable = true
            logger.error("the outbox could not be written (disk full?); answering 503 so the hub posts the event again",
                         ["pushes": "\(result.owed.count)", "error": "\(error)"])
        }
    }

    private func suppressed(_ event: HostEvent, _ reason: DispatchResult.Suppression) async -> DispatchResult {
        DispatchResult(eventId: event.eventId, suppressed: reason, badge: (try? await store.badgeCount()) ?? 0)
    }

    // MARK: Tokens and badge

    /// Stores or refreshes an alert token; when its platform goes through the relay it is
    /// registered now, cached or not (a phone's registration refreshes its binding), and again
    /// before a send if that fails.
    public func registerAlertToken(_ token: AlertToken) async throws {
        try await store.upsertAlertToken(token)
        if let relay, relayCarries(token.platform) { await relay.bind(token) }
    }

    /// Forgets an alert token locally and unbinds it on the relay, as the platform it was stored
    /// with (`platform` when it was not stored).
    public func removeAlertToken(_ token: String, platform: AlertToken.Platform) async throws {
        let stored = try await store.deleteAlertToken(token)
        await relay?.unregister(token, platform: stored ?? platform)
    }

    /// Re-registers every stored token that goes through the relay, alert and Live Activity
    /// (after an identity rotation or a relay switch).
    public func reregisterAll() async throws -> (registered: Int, total: Int) {
        try await store.clearRegistrations(except: nil)
        let live = try await liveActivities.reregisterAll()
        guard let relay else { return (live.registered, live.total) }
        let tokens = try await store.alertTokens().filter { relayCarries($0.platform) }
        return (await relay.prepare(tokens).count + live.registered, tokens.count + live.total)
    }

    /// Whether `platform`'s alert tokens go through the relay.
    private func relayCarries(_ platform: AlertToken.Platform) -> Bool {
        relay.map { dispatcher.transportName(platform) == $0.name } ?? false
    }

    public func clearBadge() async throws { try await store.clearBadge() }

    /// `POST /api/push/visibility`: a desktop's report holds back its session's active and
    /// passive alerts for a while; the app's beacon (any other client) clears the badge when visible.
    func report(_ visibility: VisibilityReport) async throws {
        if visibility.client == .desktop, let sessionId = visibility.sessionId {
            presence.report(sessionId: sessionId, visible: visibility.visible)
        } else if visibility.visible {
            try await store.clearBadge()
        }
    }

    /// `GET /api/status`.
    public func status() async throws -> JSONValue {
        let counts = try await store.counts()
        return .object(JSONObject([
            ("serverId", .string(settings.serverId)),
            ("iosPush", .object(JSONObject([
                ("mode", .string(settings.iosPushMode.rawValue)), ("transport", .string(dispatcher.transportName(.ios))),
                ("relayConfigured", .bool(relay != nil)), ("health", dispatcher.health[.ios]?.json ?? .null),
            ]))),
            ("androidAlertPush", .object(JSONObject([
                ("mode", .string(settings.androidAlertPushMode.rawValue)), ("transport", .string(dispatcher.transportName(.android))),
                ("health", dispatcher.health[.android]?.json ?? .null), ("tokens", .integer(Int64(counts.androidAlertTokens))),
            ]))),
            ("hapi", .object(JSONObject([
                ("ios", .string(hapi.iosName)), ("android", .string(hapi.androidName)),
                ("devices", .integer(Int64(try await store.hapiDeviceCount()))),
            ]))),
            ("alertTokens", .integer(Int64(counts.alertTokens))),
            ("liveActivityTokens", .integer(Int64(counts.liveActivityTokens))),
            ("liveActivityPriority", liveActivities.priorityStatus()),
            ("badge", .integer(Int64(counts.badge))),
            ("outbox", try await outbox.status()),
        ]))
    }

    /// `GET /metrics` on `PUSHGATE_METRICS_LISTEN`: the dispatch counters and the outbox's.
    public func metrics() async -> String {
        let summary = try? await store.outboxSummary()
        return HostMetrics.render(counters: counters.current, outbox: outbox.counters.current, depth: summary?.depth,
                                  oldestCreatedAtMs: summary?.oldestCreatedAtMs, nowMs: scheduler.clock.nowMilliseconds)
    }

    /// Stops the Live Activity engine and the APNs and FCM clients (direct modes), and writes the badge
    /// tags still waiting for their write.
    public func shutdown() async {
        await liveActivities.stop()
        await waitForScheduledDispatches()
        await outbox.stop()
        do {
            try await store.finishWritingBehind()
        } catch {
            logger.error("the badge set could not be written; a restart shows a smaller badge", ["error": "\(error)"])
        }
        await hapi.shutdown()
        await apnsClient?.shutdown()
        await androidAlertFCM?.shutdown()
    }

    deinit { eventLoop.close() }
}
