import PushgateCore
@testable import PushgateHost
import PushgateTesting

/// Hapi-path calls on ``HostHarness``: devices with their own keys, events as the hub posts
/// them, and scheduled dispatches.
extension HostHarness {
    /// A host for the hapi path (protocol/hapi-push.md §6): `ios` is the iOS mode, `android` the Android
    /// one (`off` unless given); `relay` iOS without `relayURL` starts a real relay.
    convenience init(hapi ios: IOSPushMode, android: String = "off", relayURL: String? = nil,
                     hostEnvironment: [String: String] = [:]) async throws {
        try await self.init(mode: ios, android: android, relayURL: relayURL, hostEnvironment: hostEnvironment)
    }

    /// Registers a device through the API; returns the key it registered (nil for `wear` or a keyless phone).
    @discardableResult
    func registerDevice(_ token: String, platform: String = "ios", deviceId: String? = nil,
                        key: HapiPushKey? = HapiPushKey.random()) async throws -> HapiPushKey? {
        var body = JSONObject([("token", .string(token)), ("platform", .string(platform)),
                               ("deviceId", .string(deviceId ?? "install-" + token.prefix(12)))])
        if let key { body["pushKey"] = .string(key.storedForm) }
        let answer = try await call("POST", "/api/devices/register", .object(body))
        precondition(answer.status == 200, "register answered \(answer.status)")
        return platform == "wear" ? nil : key
    }

    /// Posts an event; returns the dispatch result.
    func event(_ body: JSONObject) async throws -> JSONValue {
        try await call("POST", "/api/events", .object(body)).json ?? .null
    }

    /// Runs the scheduler forward and waits for the dispatches it started.
    func advance(byMs ms: Int64) async {
        scheduler.advance(byMs: ms)
        await service.waitForScheduledDispatches()
    }

    /// The fake APNs requests for `token`.
    func apnsRequests(_ token: String) -> [RecordedRequest] { fake.requests.filter { $0.deviceToken == token } }
}
