/// A way out for content-free alerts: the signed relay (both platforms), direct APNs (iOS
/// tokens) or direct FCM (Android tokens).
public protocol AlertTransport: Sendable {
    /// A short name for status and logs (`relay`, `apns`, `fcm`).
    var name: String { get }
    /// Makes `tokens` deliverable (relay registration); returns those that are. Never throws.
    func prepare(_ tokens: [AlertToken]) async -> Set<String>
    /// Sends one batch; one outcome per token of the batch. Never throws.
    func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome]
}
