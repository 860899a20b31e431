import PushgateCore

/// One push to one device, as the relay hands it to a provider.
public struct PushDelivery: Sendable {
    /// `alert` or `liveactivity` (the `apns-push-type`).
    public var pushType: String
    public var token: String
    public var environment: PushEnvironment
    /// `apns-topic`: the bundle id, or `<bundle>.push-type.liveactivity`.
    public var topic: String
    public var priority: Int
    /// `apns-expiration` (seconds since the epoch; 0 = deliver now or never).
    public var expiration: Int64
    /// `apns-collapse-id`, only when the host gave one.
    public var collapseId: String?
    public var payload: [UInt8]
}

/// What the provider said about one delivery.
public enum DeliveryOutcome: Sendable, Equatable {
    /// Accepted by the provider (not a handset receipt).
    case delivered
    /// The token is dead: every binding of it is deleted.
    case dead(reason: String)
    /// Anything else; the binding stays.
    case transient(reason: String)
}

/// Where the relay's pushes go: APNs, or the dry-run file.
public protocol DeliveryChannel: Sendable {
    /// Whether credentials are loaded and deliveries can be attempted (`/readyz`).
    var isReady: Bool { get }
    /// Sends one push and reports the provider's verdict; never throws.
    func deliver(_ delivery: PushDelivery) async -> DeliveryOutcome
    /// Lets in-flight deliveries finish and closes connections.
    func shutdown() async
}
