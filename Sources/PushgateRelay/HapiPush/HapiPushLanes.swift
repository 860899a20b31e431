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
    /// `channel` and Android through an FCM client when a service account is configured.
    static func make(_ configuration: RelayConfiguration, channel: any DeliveryChannel, clock: any WallClock,
                     logger: Logger) throws -> HapiPushLanes {
        if let dryRun = channel as? DryRunChannel {
            return HapiPushLanes(ios: HapiDryRunLane(channel: dryRun), android: HapiDryRunLane(channel: dryRun))
        }
        let settings = configuration.hapi
        var lanes = HapiPushLanes(ios: HapiAPNsLane(channel: channel, bundleId: settings.apnsBundleId ?? configuration.bundleId,
                                                    environment: settings.apnsEnvironment, ttlSeconds: settings.ttlSeconds,
                                                    clock: clock))
        if let fcm = settings.fcm {
            let client = try FCMClient(configuration: FCMConfiguration(account: fcm.account, origin: fcm.origin, tokenURI: fcm.tokenURI,
                                                                      extraCAFile: fcm.extraCAFile),
                                       clock: clock, logger: logger.named("fcm"))
            lanes.android = HapiFCMLane(client: client, packageName: fcm.packageName, ttlSeconds: settings.ttlSeconds)
        }
        return lanes
    }

    func shutdown() async {
        await ios?.shutdown()
        await android?.shutdown()
    }
}
