import PushgateCore
import PushgateProviders
@testable import PushgateRelay

/// hapi's `POST /v1/push` body, then the provider request its lane builds. The lanes take an
/// accepted request as valid, so an iOS one must make an APNs notification, and the FCM message
/// of an Android one must serialize.
enum HapiPushTarget {
    static let target = FuzzTarget("hapi-push") { input in
        guard let request = try? HapiPushRequest(body: Array(input)) else { return }
        precondition(request.envelope.utf16.count <= HapiEnvelope.maxLength, "an accepted envelope is over the cap")
        switch request.platform {
        case .ios:
            do {
                _ = try HapiAPNsAlert.notification(deviceToken: request.token, bundleId: "com.example.app", envelope: request.envelope,
                                                   collapseId: request.collapseId, priority: request.priority,
                                                   interruptionLevel: request.interruptionLevel, expiration: 0)
            } catch {
                preconditionFailure("an accepted iOS request makes no APNs notification: \(error)")
            }
        case .android:
            _ = FCMMessage.relay(token: request.token, envelope: request.envelope, priority: request.priority,
                                 packageName: FCMMessage.defaultRelayPackageName, ttlSeconds: 3_600).body
        }
    }
}
