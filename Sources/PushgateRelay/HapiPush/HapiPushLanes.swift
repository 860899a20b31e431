import PushgateCore
import PushgateProviders

/// The lanes of `POST /v1/push`; a platform without one answers 501.
struct HapiPushLanes: Sendable {
    var ios: (any HapiPushLane)?
    var android: (any HapiPushLane)?

    func lane(for platform: HapiPushRequest.Platform) -> (any HapiPushLane)? {
        switch platform {
        case .ios: ios
        case .android: android
        }
    }

    /// Dry-run answers both platforms from the file; otherwise iOS goes through the relay's APNs
    /// `channel` and Android through the FCM client of `fcmClients` for the configured service
    /// account, when there is one.
    static func make(_ configuration: RelayConfiguration, fcmClients: RelayFCMClients,
                     channel: any DeliveryChannel, clock: any WallClock, logger: Logger) throws -> HapiPushLanes {
        if let dryRun = channel as? DryRunChannel {
            return HapiPushLanes(ios: HapiDryRunLane(channel: dryRun), android: HapiDryRunLane(channel: dryRun))
        }
        let settings = configuration.hapi
        var lanes = HapiPushLanes(ios: HapiAPNsLane(channel: channel, bundleId: settings.apnsBundleId ?? configuration.bundleId,
                                                    environment: settings.apnsEnvironment, ttlSeconds: settings.ttlSeconds,
                                                    clock: clock))
        if let fcm = settings.fcm {
            // `FCM_PACKAGE_NAME` defaults to hapi's app, so a package name is always set here.
            lanes.android = HapiFCMLane(fcm: try fcmClients.lease(fcm, clock: clock, logger: logger),
                                        packageName: fcm.packageName ?? FCMMessage.defaultRelayPackageName,
                                        ttlSeconds: settings.ttlSeconds)
        }
        return lanes
    }

    func shutdown() async {
        await ios?.shutdown()
        await android?.shutdown()
    }
}
