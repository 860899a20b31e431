import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The encrypted path's transports as the settings select them: the clients they need and
/// the fan-out over them.
///
/// - Important: protocol/hapi-push.md §6 — both relay lanes share one relay client (`pushRelayUrl`);
///   `apns` mode shares the host's APNs client; direct FCM gets a 10 s deadline (§8); the
///   resolved mode of each platform, and why a platform is off, are logged at start-up.
final class HapiTransports: Sendable {
    let fanout: HapiFanout
    /// The transport each platform uses: `relay`, `apns`, `fcm` or `off`.
    let iosName: String
    let androidName: String
    private let fcmClient: FCMClient?

    /// `apnsClient` is the host's direct APNs client (set in `apns` mode); the relay client reads
    /// its answers on `eventLoop`, the host's.
    init(settings: HostSettings, store: HostStore, apnsClient: APNsClient?, eventLoop: EpollEventLoop, clock: any WallClock,
         outbox: HostOutbox?, logger: Logger) {
        let modes = HapiModes(settings: settings)
        var offReasons = modes.offReasons
        var relayClient: HapiRelayClient?
        func relay(_ url: String) -> HapiRelayClient {
            if let relayClient { return relayClient }
            let client = HapiRelayClient(baseURL: url, logger: logger, eventLoop: eventLoop)
            relayClient = client
            return client
        }
        var fcmClient: FCMClient?
        let android: HapiFanout.AndroidRoute
        switch modes.android {
        case .relay(let url):
            android = .encrypted(HapiRelayLane(client: relay(url), platform: .android))
        case .fcm(let account):
            do {
                let client = try settings.hapi.fcmClient(account: account, clock: clock, logger: logger)
                fcmClient = client
                android = .direct(HapiFCMLane(client: client, ttlSeconds: settings.apnsTTLSeconds))
            } catch {
                offReasons.append(("android", "the FCM endpoints (PUSHGATE_FCM_TOKEN_URI, PUSHGATE_FCM_ORIGIN, PUSHGATE_FCM_CA_FILE) are not usable: \(error)"))
                android = .off
            }
        case .off:
            android = .off
        }
        let ios: HapiFanout.IOSRoute
        switch (modes.ios, apnsClient, settings.directAPNs) {
        case (.relay(let url), _, _): ios = .encrypted(HapiRelayLane(client: relay(url), platform: .ios))
        case (.apns, let client?, let direct?):
            ios = .encrypted(HapiAPNsLane(client: client, bundleId: direct.bundleId, environment: settings.hapi.apnsEnvironment,
                                          ttlSeconds: settings.apnsTTLSeconds, clock: clock))
        default: ios = .off
        }
        self.fcmClient = fcmClient
        fanout = HapiFanout(store: store, android: android, ios: ios, outbox: outbox, logger: logger)
        iosName = fanout.iosName
        androidName = fanout.androidName
        logger.info("hapi transports", ["ios": iosName, "android": androidName])
        for (platform, reason) in offReasons {
            logger.warning("hapi push is off for a platform", ["platform": platform, "reason": reason])
        }
    }

    /// Lets sends in flight finish and closes the FCM client (the APNs client is the host's).
    func shutdown() async {
        await fcmClient?.shutdown()
    }
}
