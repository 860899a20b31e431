import PushgateCore
import PushgateProviders

/// Delivers alerts to Android (FCM) tokens straight to FCM with the operator's own service
/// account (`PUSHGATE_ANDROID_ALERT_PUSH=direct`), as the notification message the relay would
/// build (``FCMMessage/alert(token:title:body:data:collapseId:badge:channelId:packageName:ttlSeconds:level:timeSensitiveChannelId:)``).
///
/// - Important: docs/host.md "Android alert tokens" — `UNREGISTERED`, and `INVALID_ARGUMENT`
///   naming `message.token`, delete the token (``FCMResponseClassifier``'s dead-token rules);
///   every other failure keeps it, and a passing one goes to the outbox.
public struct DirectFCMAlertTransport: AlertTransport {
    /// The most sends in flight at once.
    static let concurrency = 16

    public var name: String { "fcm" }
    private let client: FCMClient
    private let settings: DirectFCMAlertSettings
    /// `PUSHGATE_APNS_TTL_SECONDS`, as `android.ttl`.
    private let ttlSeconds: Int

    public init(client: FCMClient, settings: DirectFCMAlertSettings, ttlSeconds: Int) {
        self.client = client
        self.settings = settings
        self.ttlSeconds = ttlSeconds
    }

    public func prepare(_ tokens: [AlertToken]) async -> Set<String> { Set(tokens.map(\.token)) }

    public func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome] {
        let results = await forEachConcurrently(batch.tokens, limit: Self.concurrency) { [client, settings, ttlSeconds] token
            -> (String, TokenOutcome) in
            let message = batch.dismissCollapseIds.isEmpty
                ? FCMMessage.alert(token: token, title: batch.title, body: batch.body, data: batch.data,
                                   collapseId: batch.tag, badge: Int64(batch.badge), channelId: settings.channelId,
                                   packageName: settings.packageName, ttlSeconds: ttlSeconds, level: batch.attention.level,
                                   timeSensitiveChannelId: settings.timeSensitiveChannelId)
                : FCMMessage.dismissal(token: token, collapseIds: batch.dismissCollapseIds, packageName: settings.packageName,
                                       ttlSeconds: ttlSeconds)
            return switch await client.send(message) {
            case .sent: (token, .accepted)
            case .dead: (token, .dropped)
            case .failed(_, let failure): (token, .failed(RetryAdvice(failure)))
            }
        }
        return Dictionary(results, uniquingKeysWith: { first, _ in first })
    }
}
