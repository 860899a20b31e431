import PushgateCore

/// A way out for Live Activity pushes: the signed relay or direct APNs.
public protocol LiveActivityTransport: Sendable {
    /// A short name for logs (`relay`, `apns`).
    var name: String { get }
    /// Makes `tokens` deliverable (relay registration, cached); returns those that are. Never throws.
    func prepare(_ tokens: [String]) async -> Set<String>
    /// Makes a token a phone just registered (or registered again) deliverable now, whatever is
    /// cached: a phone's registration always refreshes its relay binding. Never throws.
    func bind(_ token: String) async
    /// Removes this host's binding of a token it stopped updating (replaced, evicted, expired, deleted).
    func unbind(_ token: String) async
    /// Forgets what is known about tokens the provider already let go (after an accepted `end`, or `drop`).
    func forget(_ tokens: [String]) async
    /// Sends one push at `apns-priority` `priority`; one outcome per token. Never throws.
    func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome]

    /// ``prepare(_:)`` for push-to-start tokens (relay kind `start`).
    func prepareStart(_ tokens: [String]) async -> Set<String>
    /// ``bind(_:)`` for a push-to-start token.
    func bindStart(_ token: String) async
    /// ``unbind(_:)`` for a push-to-start token (replaced, expired, deleted); also forgets it.
    func unbindStart(_ token: String) async
    /// ``forget(_:)`` for push-to-start tokens the provider reported dead.
    func forgetStart(_ tokens: [String]) async
    /// Sends one start (its push names one push-to-start token, made deliverable first) at
    /// `apns-priority` 10. Never throws.
    func start(_ push: LiveActivityPush, start: LiveActivityStart, environment: String) async -> TokenOutcome
}

extension LiveActivityTransport {
    /// A transport without bindings (direct APNs) has nothing to refresh: preparing is enough.
    public func bind(_ token: String) async { _ = await prepare([token]) }
    public func bindStart(_ token: String) async { _ = await prepareStart([token]) }
}
