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

extension RelayConfiguration {
    /// The delivery channel this configuration asks for: the dry-run file, or APNs with the
    /// configured key (an unreadable `.p8` stops start-up, naming the setting only). `clock` dates
    /// provider tokens, `deadlineClock` times requests (tests pass one manual clock as both).
    public func makeChannel(clock: any WallClock, deadlineClock: any MonotonicClock = SystemMonotonicClock(),
                            logger: Logger) throws -> any DeliveryChannel {
        guard let apns else { return try DryRunChannel(logPath: dryRunLog) }
        let configuration = APNsConfiguration(privateKey: try apns.privateKey(), keyId: apns.keyId, teamId: apns.teamId,
                                              productionOrigin: apns.productionOrigin, sandboxOrigin: apns.sandboxOrigin,
                                              extraCAFile: apns.extraCAFile)
        return try APNsClient(configuration: configuration, clock: clock, deadlineClock: deadlineClock, logger: logger.named("apns"))
    }
}

extension RelayConfiguration.APNs {
    /// The `.p8` key; one that is not a PKCS#8 P-256 private key is named by its setting only.
    func privateKey() throws(ConfigurationError) -> P256PrivateKey {
        do {
            return try P256PrivateKey(pkcs8PEM: p8PEM)
        } catch {
            throw ConfigurationError(setting: "PUSHGATE_RELAY_APNS_P8 / APNS_P8_PATH", problem: "is not a PKCS#8 P-256 private key (.p8)")
        }
    }
}
