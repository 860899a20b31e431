import PushgateCore
import PushgateProviders
@testable import PushgateRelay

/// The relay's signed request decoders, each followed by what the relay does with an accepted
/// request before it is stored or sent: the signed message, its signature checked at the relay's
/// clock, the replay key, and the APNs payload and provider requests built from it.
enum RelayRequestTargets {
    /// The relay's clock in every target: the `ts` of the seeds (Fixtures/vectors/signed-messages.json).
    static let nowMs: Int64 = 1_764_669_600_000
    static let skewMs: Int64 = 300_000
    static let bundleId = "com.example.app"

    static let all = [
        register("relay-register", .registerToken),
        register("relay-unregister", .unregisterToken),
        register("relay-register-live-activity", .registerLiveActivityToken),
        register("relay-unregister-live-activity", .unregisterLiveActivityToken),
        send, background, liveActivity,
    ]

    static func register(_ name: String, _ route: RelayRoute) -> FuzzTarget {
        FuzzTarget(name) { input in
            let liveActivity = route == .registerLiveActivityToken || route == .unregisterLiveActivityToken
            guard let request = try? RegisterRequest(.relayBody(Array(input)), liveActivity: liveActivity, servesAndroid: true,
                                                     keys: PublicKeyCache()) else { return }
            precondition(request.platform == "android" ? DeviceToken.isValidFCM(request.token) : DeviceToken.isValid(request.token),
                         "an accepted token breaks its platform's rule")
            authorize(request.proof, message: request.signedMessage(route: route))
        }
    }

    static let send = FuzzTarget("relay-send") { input in
        guard let request = try? SendRequest(.relayBody(Array(input)), keys: PublicKeyCache()),
              !request.signsAnotherRoutesMessage else { return }
        precondition((1...100).contains(request.tokens.count), "an accepted send names 0 or over 100 tokens")
        guard let payload = APNsPayload.alert(title: request.title, body: request.body, badge: request.badge,
                                              threadId: request.collapseId, data: request.data, attention: request.attention)
        else { return }
        authorize(request.proof, message: request.signedMessage)
        for token in request.tokens {
            if DeviceToken.isValid(token) {
                _ = try? APNsNotification.alert(deviceToken: token, bundleId: bundleId, payload: payload, collapseId: request.collapseId,
                                                expiration: APNsNotification.expiration(ttlSeconds: 3_600, nowMs: nowMs))
            }
            _ = FCMMessage.alert(token: token, title: request.title, body: request.body, data: request.data,
                                 collapseId: request.collapseId, badge: request.badge, channelId: "default", packageName: nil,
                                 ttlSeconds: 3_600, level: request.attention.level, timeSensitiveChannelId: "urgent").body
        }
    }

    static let background = FuzzTarget("relay-background") { input in
        guard let request = try? BackgroundRequest(.relayBody(Array(input)), keys: PublicKeyCache()),
              let payload = APNsPayload.dismissal(collapseIds: request.collapseIds) else { return }
        authorize(request.proof, message: request.signedMessage)
        for token in request.tokens {
            if DeviceToken.isValid(token) {
                _ = try? APNsNotification.background(deviceToken: token, bundleId: bundleId, payload: payload)
            }
            _ = FCMMessage.dismissal(token: token, collapseIds: request.collapseIds, packageName: nil, ttlSeconds: 3_600).body
        }
    }

    static let liveActivity = FuzzTarget("relay-live-activity") { input in
        guard let request = try? LiveActivityRequest(.relayBody(Array(input)), keys: PublicKeyCache()) else { return }
        let push = request.push
        guard let payload = APNsPayload.liveActivity(timestamp: nowMs / 1_000, event: push.event.rawValue,
                                                     contentState: push.contentState.json,
                                                     dismissalDate: push.dismissalDate, staleDate: push.staleDate)
        else { return }
        authorize(request.proof, message: request.signedMessage)
        let expiration = APNsNotification.expiration(of: push, ttlSeconds: 3_600, nowMs: nowMs)
        for token in push.tokens {
            _ = try? APNsNotification.liveActivity(deviceToken: token, bundleId: bundleId, payload: payload,
                                                   priority: request.priority, expiration: expiration)
        }
    }

    /// The relay's checks of a decoded proof: freshness and signature, then its replay key.
    static func authorize(_ proof: SignedProof, message: String) {
        // A fuzzed signature almost never verifies; the replay key is computed for any serverId.
        let serverId = (try? proof.verify(message: message, nowMs: nowMs, skewMs: skewMs)) ?? "fuzz"
        _ = proof.replayKey(serverId: serverId, skewMs: skewMs)
    }
}
