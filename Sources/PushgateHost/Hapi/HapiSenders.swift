import PushgateCore
import PushgateProviders

/// Sends one sealed envelope to one device: through a relay (either platform) or direct APNs.
protocol HapiEnvelopeSender: Sendable {
    /// A short name for logs: `relay` or `apns`.
    var name: String { get }
    /// Never throws: every failure is an outcome. `level`: the event's interruption level, for
    /// a relay that takes it.
    func send(token: String, envelope: String, collapseId: String?, level: AlertAttention.Level?) async -> HapiPushOutcome
}

/// Sends the readable payload to one device through the operator's own Firebase project.
protocol HapiDataSender: Sendable {
    /// Never throws: every failure is an outcome.
    func send(token: String, platform: HapiDevicePlatform, payload: HapiPayload) async -> HapiPushOutcome
}

/// One platform's lane of a relay: the relay client with its `platform` member.
struct HapiRelayLane: HapiEnvelopeSender {
    let client: HapiRelayClient
    let platform: HapiRelayClient.Platform

    var name: String { "relay" }

    func send(token: String, envelope: String, collapseId: String?, level: AlertAttention.Level?) async -> HapiPushOutcome {
        await client.push(platform: platform, token: token, envelope: envelope, collapseId: platform == .ios ? collapseId : nil,
                          level: level)
    }
}

/// `apns` mode: the host's own APNs key sends the envelope in the placeholder alert, hapi's
/// alert as it is (no interruption level).
///
/// - Important: protocol/hapi-push.md §8 — the same alert, headers and dead-token rules as the relay's
///   iOS lane; the collapse id truncated by ``HapiCollapseId``.
struct HapiAPNsLane: HapiEnvelopeSender {
    let client: APNsClient
    let bundleId: String
    let environment: APNsEnvironment
    /// `PUSHGATE_APNS_TTL_SECONDS`.
    let ttlSeconds: Int
    let clock: any WallClock

    var name: String { "apns" }

    func send(token: String, envelope: String, collapseId: String?, level: AlertAttention.Level?) async -> HapiPushOutcome {
        let expiration = APNsNotification.expiration(ttlSeconds: ttlSeconds, nowMs: clock.nowMilliseconds)
        guard let notification = try? HapiAPNsAlert.notification(deviceToken: token, bundleId: bundleId, envelope: envelope,
                                                                 collapseId: collapseId, expiration: expiration) else {
            return .failed(reason: "not an APNs device token")
        }
        return HapiAPNsAlert.outcome(await client.send(notification, environment: environment))
    }
}

/// Direct FCM: the operator's own Firebase project receives the readable payload as `data`.
///
/// - Important: protocol/hapi-push.md §8 (direct message) — data only, `HIGH` priority, `direct_boot_ok`
///   for `wear` rows; no envelope, so the 3200-character cap does not apply.
struct HapiFCMLane: HapiDataSender {
    let client: FCMClient
    /// `PUSHGATE_APNS_TTL_SECONDS`, as the message's `android.ttl`.
    let ttlSeconds: Int

    func send(token: String, platform: HapiDevicePlatform, payload: HapiPayload) async -> HapiPushOutcome {
        await client.send(FCMMessage.direct(token: token, payload: payload, wear: platform == .wear, ttlSeconds: ttlSeconds))
    }
}
