import PushgateCore
import PushgateProviders

/// Where `POST /v1/push` sends one platform's messages.
protocol HapiPushLane: Sendable {
    /// Sends one validated request; never throws (failures are outcomes).
    func push(_ request: HapiPushRequest) async -> HapiPushOutcome
    /// The longest one attempt may take (the provider request deadline).
    var requestTimeoutMilliseconds: Int64 { get }
    /// Whether a copy of `request` that reaches the phone twice replaces itself there, so a try
    /// that may have been delivered can be sent again (docs/relay.md "Retries").
    func replacesDuplicates(of request: HapiPushRequest) -> Bool
    /// Lets sends in flight finish and closes what the lane owns.
    func shutdown() async
}

/// The iOS lane: the encrypted alert of protocol/hapi-push.md §8 through the relay's APNs channel.
struct HapiAPNsLane: HapiPushLane {
    let channel: any DeliveryChannel
    /// `apns-topic`: `E2E_APNS_BUNDLE_ID`, else the relay's `APNS_BUNDLE_ID`.
    let bundleId: String
    /// The request has no environment field; `E2E_APNS_ENV` chooses.
    let environment: APNsEnvironment
    /// `E2E_APNS_TTL_SECONDS`.
    let ttlSeconds: Int
    let clock: any WallClock

    var requestTimeoutMilliseconds: Int64 { channel.requestTimeoutMilliseconds }

    /// APNs replaces a notification by its collapse id.
    func replacesDuplicates(of request: HapiPushRequest) -> Bool {
        request.collapseId.flatMap(HapiCollapseId.truncate) != nil
    }

    func push(_ request: HapiPushRequest) async -> HapiPushOutcome {
        guard let notification = try? HapiAPNsAlert.notification(
            deviceToken: request.token, bundleId: bundleId, envelope: request.envelope,
            collapseId: request.collapseId, priority: request.priority, interruptionLevel: request.interruptionLevel,
            expiration: APNsNotification.expiration(ttlSeconds: ttlSeconds, nowMs: clock.nowMilliseconds)) else {
            // Token, priority and envelope were validated already; only a bad bundle id gets here.
            return .failed(reason: "invalid APNs notification")
        }
        return HapiAPNsAlert.outcome(await channel.deliver(notification, environment: environment))
    }

    /// The channel belongs to the relay, which shuts it down.
    func shutdown() async {}
}

/// The Android lane: hapi's data-only relay message through FCM (docs/relay.md "`POST /v1/push`:
/// the hapi route"). A data message has no notification priority, so the interruption level
/// changes nothing here.
struct HapiFCMLane: HapiPushLane {
    /// The relay's client for the service account, shared with the gateway's Android lane.
    let fcm: RelayFCMClients.Lease
    /// `restricted_package_name`: `FCM_PACKAGE_NAME`.
    let packageName: String
    /// `E2E_APNS_TTL_SECONDS`, as the message's `android.ttl`.
    let ttlSeconds: Int

    var requestTimeoutMilliseconds: Int64 { fcm.client.requestTimeoutMilliseconds }

    /// The relay's FCM messages carry no `collapse_key` (hapi-compatible): a copy is a second notification.
    func replacesDuplicates(of request: HapiPushRequest) -> Bool { false }

    func push(_ request: HapiPushRequest) async -> HapiPushOutcome {
        await fcm.client.send(.relay(token: request.token, envelope: request.envelope, priority: request.priority,
                                     packageName: packageName, ttlSeconds: ttlSeconds))
    }

    func shutdown() async { await fcm.end() }
}

/// Both lanes with `--dry-run`: every request is accepted and written as a delivery line
/// holding the platform, the token hash, the envelope length, the collapse id, the priority and
/// the interruption level.
struct HapiDryRunLane: HapiPushLane {
    let channel: DryRunChannel

    var requestTimeoutMilliseconds: Int64 { channel.requestTimeoutMilliseconds }

    func replacesDuplicates(of request: HapiPushRequest) -> Bool { false }

    func push(_ request: HapiPushRequest) async -> HapiPushOutcome {
        var line = JSONObject([
            ("route", "/v1/push"), ("platform", .string(request.platform.rawValue)),
            ("token", .string(Redact.token(request.token))), ("envelopeLength", .integer(Int64(request.envelope.utf8.count))),
        ])
        if let collapseId = request.collapseId { line["collapseId"] = .string(collapseId) }
        line["priority"] = .integer(Int64(request.priority))
        if let level = request.interruptionLevel { line[HapiPushRequest.interruptionLevelField] = .string(level.rawValue) }
        channel.write(line)
        return .sent
    }

    func shutdown() async {}
}
