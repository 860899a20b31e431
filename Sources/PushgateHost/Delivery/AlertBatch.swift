/// One content-free alert for up to ``maxTokens`` tokens of one locale and APNs environment
/// (Android tokens join a batch of their locale whatever its environment: FCM has none).
public struct AlertBatch: Sendable, Equatable {
    /// The most tokens in one signed send.
    public static let maxTokens = 100

    public var tokens: [String]
    /// Those of ``tokens`` that are Android (FCM) tokens; the others are iOS (APNs) tokens. The
    /// relay sends both kinds in one signed send and routes each by the platform it was bound with.
    public var androidTokens: Set<String> = []
    public var title: String
    public var body: String
    public var badge: Int
    /// The tag: `collapseId` and APNs `thread-id`.
    public var tag: String
    /// `production` or `sandbox`.
    public var environment: String
    public var sessionId: String
    /// The event's id (``EventId``).
    public var eventId: String

    /// `data` as sent: the session id and the event id, nothing of the event's text.
    public var data: [(key: String, value: String)] { [("sessionId", sessionId), ("eventId", eventId)] }
}
