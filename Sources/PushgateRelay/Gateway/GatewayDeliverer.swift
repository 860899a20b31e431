import PushgateCore
import PushgateProviders
import PushgateStore

/// Sends one flushed window to its registration's provider and records the outcome.
///
/// - Important: orca-gateway.md §6 and §7 — the registration is looked up again (deleted or
///   dead meanwhile → nothing sent); a dead answer marks it dead (§7.3); any failure, thrown
///   or reported, is counted and logged (platform, outcome, reason, 4 chars of fingerprint) and
///   never reaches the timer; nothing is retried.
struct GatewayDeliverer: Sendable {
    /// What became of a delivery.
    enum Outcome: Sendable, Equatable {
        case sent
        case dead(reason: String)
        case error(reason: String)
    }

    let store: any GatewayStore
    let apns: any DeliveryChannel
    /// `nil`: no FCM project configured, so Android deliveries end as `error`.
    let android: (any GatewayAndroidLane)?
    let configuration: GatewayConfiguration
    let clock: any WallClock
    let counters: GatewayCounters
    let logger: Logger

    /// Delivers `delivery`; never throws.
    func deliver(_ delivery: GatewayDelivery) async {
        do {
            guard let device = try await store.device(registrationId: delivery.registrationId),
                  device.hostFingerprint == delivery.hostFingerprint, !device.dead else { return }
            let outcome = try await send(delivery, to: device)
            record(outcome, platform: device.platform, hostFingerprint: delivery.hostFingerprint)
            if case .dead = outcome {
                try await store.markDead(registrationId: device.registrationId, token: device.token, nowMs: clock.nowMilliseconds)
            }
        } catch {
            counters.count(.deliveryError)
            // A type name only: an error's text may carry row values or payload parts.
            logger.error("gateway delivery failed", ["error": "\(type(of: error))", "host": Redact.serverId(delivery.hostFingerprint)])
        }
    }

    private func send(_ delivery: GatewayDelivery, to device: GatewayDevice) async throws -> Outcome {
        switch device.platform {
        case "ios":
            let notification = try GatewayAPNsRequest.notification(delivery, token: device.token, topic: configuration.apnsTopic,
                                                                   nowMs: clock.nowMilliseconds)
            switch await apns.deliver(notification, environment: GatewayAPNsRequest.environment(device.apnsEnvironment)) {
            case .delivered: return .sent
            case .dead(let reason): return .dead(reason: reason)
            case .transient(let reason, _): return .error(reason: reason)
            }
        default:
            guard let android else { return .error(reason: "no FCM project configured") }
            return await android.send(delivery, token: device.token)
        }
    }

    private func record(_ outcome: Outcome, platform: String, hostFingerprint: String) {
        let host = Redact.serverId(hostFingerprint)
        switch outcome {
        case .sent:
            counters.count(.deliverySent)
        case .dead(let reason):
            counters.count(.deliveryDead)
            logger.info("gateway delivery: the provider says the token is dead; registration marked dead",
                        ["platform": platform, "outcome": "dead", "reason": reason, "host": host])
        case .error(let reason):
            counters.count(.deliveryError)
            logger.warning("gateway delivery failed; not retried", ["platform": platform, "outcome": "error", "reason": reason, "host": host])
        }
    }
}
