import PushgateCore
import PushgateProviders

/// Where the gateway sends Android deliveries.
protocol GatewayAndroidLane: Sendable {
    /// Sends one delivery to an FCM registration token; never throws.
    func send(_ delivery: GatewayDelivery, token: String) async -> GatewayDeliverer.Outcome
    /// Lets sends in flight finish and closes what the lane owns.
    func shutdown() async
}

/// FCM through the relay's client for its service account (shared with hapi's Android lane), to
/// the project `PUSHGATE_GATEWAY_FCM_PROJECT_ID` (the service account's own project).
///
/// - Important: protocol/gateway.md §7.2 — the message shape is ``GatewayFCMMessage``'s; a dead
///   answer (FCM `UNREGISTERED`, or `INVALID_ARGUMENT` naming the token) marks the registration
///   dead, everything else a failure that the outbox may try again (``GatewayRetryPolicy``).
struct GatewayFCMLane: GatewayAndroidLane {
    let fcm: RelayFCMClients.Lease
    let channelId: String

    func send(_ delivery: GatewayDelivery, token: String) async -> GatewayDeliverer.Outcome {
        switch await fcm.client.send(GatewayFCMMessage.fcmMessage(delivery, token: token, channelId: channelId)) {
        case .sent: .sent
        case .dead(let reason): .dead(reason: reason)
        case .failed(let reason, let failure): .failed(reason: reason, failure: failure)
        }
    }

    func shutdown() async { await fcm.end() }
}

/// `--dry-run`: every Android delivery is accepted and written to the dry-run file as
/// `{"route":"/v1/send","platform":"android","token":<hash>,"message":{…}}` (the token redacted).
struct GatewayDryRunAndroidLane: GatewayAndroidLane {
    let channel: DryRunChannel
    let channelId: String

    func send(_ delivery: GatewayDelivery, token: String) async -> GatewayDeliverer.Outcome {
        var message = GatewayFCMMessage.message(delivery, token: token, channelId: channelId)
        message["token"] = .string(Redact.token(token))
        channel.write(JSONObject([("route", "/v1/send"), ("platform", "android"), ("token", .string(Redact.token(token))),
                                  ("message", .object(message))]))
        return .sent
    }

    func shutdown() async {}
}

extension GatewayConfiguration {
    /// The Android lane these settings ask for: the dry-run file, FCM through the client of
    /// `fcmClients` when a project is set (it must be the relay's FCM service account's project),
    /// or none (Android deliveries end as `error`).
    func androidLane(_ relay: RelayConfiguration, fcmClients: RelayFCMClients, channel: any DeliveryChannel,
                     clock: any WallClock, logger: Logger) throws -> (any GatewayAndroidLane)? {
        if let dryRun = channel as? DryRunChannel { return GatewayDryRunAndroidLane(channel: dryRun, channelId: androidChannelId) }
        guard fcmProjectId != nil, let fcm = try checkFCMProject(relay) else { return nil }
        return GatewayFCMLane(fcm: try fcmClients.lease(fcm, clock: clock, logger: logger), channelId: androidChannelId)
    }

    /// The relay's FCM account that `FCM_PROJECT_ID` names; `nil` when it is unset. Throws when
    /// the relay loads no account, or one of another project.
    @discardableResult
    func checkFCMProject(_ relay: RelayConfiguration) throws(ConfigurationError) -> FCMAccountSettings? {
        guard let project = fcmProjectId else { return nil }
        guard let fcm = relay.hapi.fcm else {
            throw ConfigurationError(setting: Self.prefix + "FCM_PROJECT_ID",
                                     problem: "needs the relay's FCM service account (PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH)")
        }
        guard fcm.account.projectId == project else {
            throw ConfigurationError(setting: Self.prefix + "FCM_PROJECT_ID",
                                     problem: "must be the project_id of the FCM service account the relay loads")
        }
        return fcm
    }
}
