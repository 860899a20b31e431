import PushgateCore
import PushgateProviders

/// Delivers alerts straight to APNs with the operator's own key, with the payload the relay
/// would build.
///
/// - Important: protocol/host-api.md §5 — same JWT, HTTP/2 and dead-token rules as the relay (protocol/signed-relay.md §4, §7).
public struct DirectAPNsTransport: AlertTransport {
    /// The most pushes in flight at once.
    static let concurrency = 16

    public var name: String { "apns" }
    private let client: APNsClient
    private let bundleId: String
    /// `PUSHGATE_APNS_TTL_SECONDS`.
    private let ttlSeconds: Int
    private let clock: any WallClock

    public init(client: APNsClient, bundleId: String, ttlSeconds: Int, clock: any WallClock) {
        self.client = client
        self.bundleId = bundleId
        self.ttlSeconds = ttlSeconds
        self.clock = clock
    }

    public func prepare(_ tokens: [AlertToken]) async -> Set<String> { Set(tokens.map(\.token)) }

    public func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome] {
        let environment = APNsEnvironment(rawValue: batch.environment) ?? .production
        let dismissal = !batch.dismissCollapseIds.isEmpty
        guard let payload = dismissal ? APNsPayload.dismissal(collapseIds: batch.dismissCollapseIds) : batch.apnsPayload else {
            return Dictionary(batch.tokens.map { ($0, .failed(.never)) }, uniquingKeysWith: { a, _ in a })
        }
        let expiration = APNsNotification.expiration(ttlSeconds: ttlSeconds, nowMs: clock.nowMilliseconds)
        let results = await forEachConcurrently(batch.tokens, limit: Self.concurrency) { [client, bundleId] token -> (String, TokenOutcome) in
            guard let notification = try? dismissal
                ? APNsNotification.background(deviceToken: token, bundleId: bundleId, payload: payload, expiration: expiration)
                : APNsNotification.alert(deviceToken: token, bundleId: bundleId, payload: payload, collapseId: batch.tag,
                                         expiration: expiration) else { return (token, .failed(.never)) }
            switch await client.send(notification, environment: environment) {
            case .delivered: return (token, .accepted)
            case .dead: return (token, .dropped)
            case .transient(_, let failure): return (token, .failed(RetryAdvice(failure)))
            }
        }
        return Dictionary(results, uniquingKeysWith: { a, _ in a })
    }
}
