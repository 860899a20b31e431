import PushgateCore
import PushgateProviders

/// Delivers Live Activity pushes straight to APNs with the operator's own key, with the
/// payload and headers the relay would send.
///
/// - Important: protocol/signed-relay.md §5 — `{"aps":{timestamp, event, content-state,
///   dismissal-date | stale-date}}` (a start adds its attributes and alert), topic
///   `<bundleId>.push-type.liveactivity`, push type `liveactivity`, `apns-priority` 5 or 10 (protocol/host-api.md §6).
public struct DirectLiveActivityTransport: LiveActivityTransport {
    public var name: String { "apns" }
    private let client: APNsClient
    private let bundleId: String
    /// `PUSHGATE_APNS_TTL_SECONDS`, for a push without a stale or dismissal date.
    private let ttlSeconds: Int
    private let clock: any WallClock

    public init(client: APNsClient, bundleId: String, ttlSeconds: Int, clock: any WallClock) {
        self.client = client
        self.bundleId = bundleId
        self.ttlSeconds = ttlSeconds
        self.clock = clock
    }

    public func prepare(_ tokens: [String], kind: LiveActivityTokenKind) async -> Set<String> { Set(tokens) }

    public func unbind(_ token: String, kind: LiveActivityTokenKind) async {}

    public func forget(_ tokens: [String], kind: LiveActivityTokenKind) async {}

    public func start(_ push: LiveActivityPush, start: LiveActivityStart, environment: String) async -> TokenOutcome {
        let outcomes = await deliver(push, start: start, environment: environment, priority: LiveActivityContent.urgentPriority)
        return outcomes.values.first ?? .failed(.later)
    }

    public func deliver(_ push: LiveActivityPush, environment: String, priority: Int) async -> [String: TokenOutcome] {
        await deliver(push, start: nil, environment: environment, priority: priority)
    }

    private func deliver(_ push: LiveActivityPush, start: LiveActivityStart?, environment: String,
                         priority: Int) async -> [String: TokenOutcome] {
        let apnsEnvironment = APNsEnvironment(rawValue: environment) ?? .production
        let nowMs = clock.nowMilliseconds
        let expiration = APNsNotification.expiration(of: push, ttlSeconds: ttlSeconds, nowMs: nowMs)
        guard let payload = APNsPayload.liveActivity(timestamp: nowMs / 1_000, event: push.event.rawValue,
                                                     contentState: push.contentState.json, dismissalDate: push.dismissalDate,
                                                     staleDate: push.staleDate, start: start) else {
            return Dictionary(push.tokens.map { ($0, .failed(.never)) }, uniquingKeysWith: { first, _ in first })
        }
        let results = await forEachConcurrently(push.tokens, limit: DirectAPNsTransport.concurrency) { [client, bundleId] token -> (String, TokenOutcome) in
            guard let notification = try? APNsNotification.liveActivity(deviceToken: token, bundleId: bundleId, payload: payload,
                                                                        priority: priority, expiration: expiration) else {
                return (token, .failed(.never))
            }
            switch await client.send(notification, environment: apnsEnvironment) {
            case .delivered: return (token, .accepted)
            case .dead: return (token, .dropped)
            case .transient(_, let failure): return (token, .failed(RetryAdvice(failure)))
            }
        }
        return Dictionary(results, uniquingKeysWith: { first, _ in first })
    }
}
