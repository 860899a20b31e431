import PushgateCore
import PushgateProviders

/// The encrypted path's transports as the settings select them: the resolved modes, the
/// clients they need, and the fan-out over them.
///
/// - Important: hapi-path.md §6 — both relay lanes share one relay client (`pushRelayUrl`);
///   `apns` mode shares the host's APNs client; the resolved mode of each platform, and why a
///   platform is off, are logged at start-up.
final class HapiTransports: Sendable {
    let modes: HapiModes
    let fanout: HapiFanout

    /// `apnsClient` is the host's direct APNs client (set in `apns` mode).
    init(settings: HostSettings, store: HostStore, apnsClient: APNsClient?, logger: Logger) {
        let modes = HapiModes(settings: settings)
        self.modes = modes
        var relayClient: HapiRelayClient?
        func relay(_ url: String) -> HapiRelayClient {
            if let relayClient { return relayClient }
            let client = HapiRelayClient(baseURL: url, logger: logger)
            relayClient = client
            return client
        }
        let android: HapiFanout.AndroidRoute
        switch modes.android {
        case .relay(let url): android = .encrypted(HapiRelayLane(client: relay(url), platform: .android))
        case .fcm, .off: android = .off
        }
        let ios: HapiFanout.IOSRoute
        switch modes.ios {
        case .relay(let url): ios = .encrypted(HapiRelayLane(client: relay(url), platform: .ios))
        case .apns, .off: ios = .off
        }
        fanout = HapiFanout(store: store, android: android, ios: ios, logger: logger)
        logger.info("hapi transports", ["ios": modes.iosName, "android": modes.androidName])
        for (platform, reason) in modes.offReasons {
            logger.info("hapi push is off for a platform", ["platform": platform, "reason": reason])
        }
    }

    /// Lets sends in flight finish and closes the clients this object owns.
    func shutdown() async {}
}
