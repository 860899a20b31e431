import PushgateCore

/// Sends one sealed envelope to one device: through a relay (either platform) or direct APNs.
protocol HapiEnvelopeSender: Sendable {
    /// A short name for logs: `relay` or `apns`.
    var name: String { get }
    /// Never throws: every failure is an outcome.
    func send(token: String, envelope: String, collapseId: String?) async -> HapiOutcome
}

/// Sends the readable payload to one device through the operator's own Firebase project.
protocol HapiDataSender: Sendable {
    /// Never throws: every failure is an outcome.
    func send(token: String, platform: HapiDevicePlatform, data: JSONObject) async -> HapiOutcome
}

/// One platform's lane of a relay: the relay client with its `platform` member.
struct HapiRelayLane: HapiEnvelopeSender {
    let client: HapiRelayClient
    let platform: HapiRelayClient.Platform

    var name: String { "relay" }

    func send(token: String, envelope: String, collapseId: String?) async -> HapiOutcome {
        await client.push(platform: platform, token: token, envelope: envelope, collapseId: platform == .ios ? collapseId : nil)
    }
}
