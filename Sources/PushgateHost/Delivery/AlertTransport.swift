/// A way out for content-free iOS alerts: the signed relay or direct APNs.
public protocol AlertTransport: Sendable {
    /// A short name for status and logs (`relay`, `apns`).
    var name: String { get }
    /// Makes `tokens` deliverable (relay registration); returns those that are. Never throws.
    func prepare(_ tokens: [String]) async -> Set<String>
    /// Sends one batch; one outcome per token of the batch. Never throws.
    func deliver(_ batch: AlertBatch) async -> [String: TokenOutcome]
}
