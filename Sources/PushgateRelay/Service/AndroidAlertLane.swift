import PushgateCore
import PushgateProviders
import Synchronization

/// Where a `send` delivers its Android-bound tokens (docs/relay.md "Android tokens"): FCM
/// through the relay's client for `ANDROID_FCM_SERVICE_ACCOUNT_PATH`, or the dry-run file.
protocol AndroidAlertLane: Sendable {
    /// The longest one delivery attempt may take.
    var requestTimeoutMilliseconds: Int64 { get }
    /// Sends one message; the FCM verdict in the relay's terms (never throws).
    func deliver(_ message: FCMMessage) async -> APNsOutcome
    func shutdown() async
}

extension AndroidAlertSettings {
    /// The lane these settings make: `nil` (no account) unless the relay runs dry, when every
    /// Android delivery is written to the dry-run file as iOS ones are.
    static func lane(_ settings: AndroidAlertSettings?, fcmClients: RelayFCMClients, channel: any DeliveryChannel,
                     clock: any WallClock, logger: Logger) throws -> (any AndroidAlertLane)? {
        if let dryRun = channel as? DryRunChannel { return DryRunAndroidAlertLane(channel: dryRun) }
        guard let settings else { return nil }
        return FCMAndroidAlertLane(fcm: try fcmClients.lease(settings.fcm, clock: clock, logger: logger), clock: clock,
                                   logger: logger.named("android"))
    }
}

/// FCM HTTP v1 `messages:send` through the client shared with every lane of the same account.
final class FCMAndroidAlertLane: AndroidAlertLane {
    let fcm: RelayFCMClients.Lease
    let clock: any WallClock
    let logger: Logger
    /// When a `SENDER_ID_MISMATCH` was last logged: once a minute is enough to be seen.
    private let lastMismatchLogMs = Atomic<Int64>(Int64.min)

    init(fcm: RelayFCMClients.Lease, clock: any WallClock, logger: Logger) {
        self.fcm = fcm
        self.clock = clock
        self.logger = logger
    }

    var requestTimeoutMilliseconds: Int64 { fcm.client.requestTimeoutMilliseconds }

    func deliver(_ message: FCMMessage) async -> APNsOutcome {
        switch await fcm.client.send(message) {
        case .sent:
            return .delivered
        case .dead(let reason):
            return .dead(reason: reason)
        case .failed(let reason, let failure):
            if reason == "SENDER_ID_MISMATCH" { logMismatch() }
            return .transient(reason: reason, failure: failure)
        }
    }

    /// The token belongs to another Firebase project than the service account's: a setting is
    /// wrong, not the token.
    private func logMismatch() {
        let now = clock.nowMilliseconds
        let last = lastMismatchLogMs.load(ordering: .relaxed)
        guard last == Int64.min || now - last >= 60_000,
              lastMismatchLogMs.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        logger.error("FCM answers SENDER_ID_MISMATCH: the Android tokens were made for another Firebase project; "
            + "check \(AndroidAlertSettings.accountSetting) (logged at most once a minute)")
    }

    func shutdown() async { await fcm.end() }
}

/// `--dry-run`: every Android delivery is accepted and written as
/// `{"platform":"android","token":<hash>,"message":{…}}`, the token redacted.
struct DryRunAndroidAlertLane: AndroidAlertLane {
    let channel: DryRunChannel

    var requestTimeoutMilliseconds: Int64 { channel.requestTimeoutMilliseconds }

    func deliver(_ message: FCMMessage) async -> APNsOutcome {
        var object = message.message
        object["token"] = .string(Redact.token(message.token))
        channel.write(JSONObject([("platform", "android"), ("token", .string(Redact.token(message.token))), ("message", .object(object))]))
        return .delivered
    }

    func shutdown() async {}
}
