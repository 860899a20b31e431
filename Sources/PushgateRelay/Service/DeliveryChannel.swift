import PushgateCore
import PushgateProviders

/// Where the relay's pushes go: APNs, or the dry-run file.
public protocol DeliveryChannel: Sendable {
    /// Whether credentials are loaded and deliveries can be attempted (`/readyz`).
    var isReady: Bool { get }
    /// The longest one delivery attempt may take (the provider request deadline).
    var requestTimeoutMilliseconds: Int64 { get }
    /// Sends one push and reports the provider's verdict; never throws.
    func deliver(_ notification: APNsNotification, environment: APNsEnvironment) async -> APNsOutcome
    /// Lets in-flight deliveries finish and closes connections.
    func shutdown() async
}

extension APNsClient: DeliveryChannel {
    /// The client exists only once its key has been loaded.
    public var isReady: Bool { true }

    public func deliver(_ notification: APNsNotification, environment: APNsEnvironment) async -> APNsOutcome {
        await send(notification, environment: environment)
    }
}
