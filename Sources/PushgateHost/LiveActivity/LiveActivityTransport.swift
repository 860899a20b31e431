import PushgateCore

/// The two kinds of token a Live Activity transport keeps deliverable, bound apart on the relay.
public enum LiveActivityTokenKind: Sendable {
    /// An activity's update token (relay kind `liveactivity`).
    case activity
    /// A device's push-to-start token (relay kind `start`; docs/live-activities.md, "Starting by push").
    case start
}

/// A way out for Live Activity pushes: the signed relay or direct APNs.
public protocol LiveActivityTransport: Sendable {
    /// A short name for logs (`relay`, `apns`).
    var name: String { get }
    /// Makes `tokens` deliverable (relay registration, cached); returns those that are. Never throws.
    func prepare(_ tokens: [String], kind: LiveActivityTokenKind) async -> Set<String>
    /// Makes a token a phone just registered (or registered again) deliverable now, whatever is
    /// cached: a phone's registration always refreshes its relay binding. Never throws.
    func bind(_ token: String, kind: LiveActivityTokenKind) async
    /// Removes this host's binding of a token it stopped using (replaced, evicted, expired, deleted).
    func unbind(_ token: String, kind: LiveActivityTokenKind) async
    /// Forgets what is known about tokens the provider already let go (after an accepted `end`,
    /// or `drop`).
    func forget(_ tokens: [String], kind: LiveActivityTokenKind) async
    /// Sends one push at `apns-priority` `priority`; one outcome per token. Never throws.
    func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome]
    /// Sends one start (its push names one push-to-start token, made deliverable first) at
    /// `apns-priority` 10. Never throws.
    func start(_ push: LiveActivityPush, start: LiveActivityStart, environment: String) async -> TokenOutcome
}

extension LiveActivityTransport {
    /// A transport without bindings (direct APNs) has nothing to refresh: preparing is enough.
    public func bind(_ token: String, kind: LiveActivityTokenKind) async { _ = await prepare([token], kind: kind) }
}
