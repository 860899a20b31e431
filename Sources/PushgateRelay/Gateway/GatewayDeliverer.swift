import PushgateCore
import PushgateProviders
import PushgateStore

/// Sends one window's summary to its registration's provider and says what came of it.
///
/// - Important: docs/gateway.md "Coalescing and delivery" — APNs for iOS, FCM for Android; a
///   dead answer is reported as such, any other failure with its ``ProviderFailure``, which
///   decides whether the outbox tries it again (``GatewayRetryPolicy``).
struct GatewayDeliverer: Sendable {
    /// What became of one attempt.
    enum Outcome: Sendable, Equatable {
        case sent
        case dead(reason: String)
        case failed(reason: String, failure: ProviderFailure)
    }

    let apns: any DeliveryChannel
    /// `nil`: no FCM project configured, so Android deliveries are refused.
    let android: (any GatewayAndroidLane)?
    let configuration: GatewayConfiguration
    let clock: any WallClock

    /// Sends `delivery` to `device`; never throws.
    func send(_ delivery: GatewayDelivery, to device: GatewayDevice) async -> Outcome {
        switch device.platform {
        case "ios":
            let notification: APNsNotification
            do {
                notification = try GatewayAPNsRequest.notification(delivery, token: device.token, topic: configuration.apnsTopic,
                                                                   nowMs: clock.nowMilliseconds)
            } catch {
                // APNs would refuse it (e.g. over 4 KiB), now and later. A type name only: an
                // error's text may carry payload parts.
                return .failed(reason: "\(type(of: error))", failure: .rejected)
            }
            switch await apns.deliver(notification, environment: GatewayAPNsRequest.environment(device.apnsEnvironment)) {
            case .delivered: return .sent
            case .dead(let reason): return .dead(reason: reason)
            case .transient(let reason, let failure): return .failed(reason: reason, failure: failure)
            }
        default:
            guard let android else { return .failed(reason: "no FCM project configured", failure: .rejected) }
            return await android.send(delivery, token: device.token)
        }
    }
}
