import Foundation
import PushgateCore
import PushgateTesting

/// A relay on loopback with the fake APNs and, unless left out, a fake FCM that knows the
/// `rs256-oauth.json` account, all on one manual clock; plus helpers to call `POST /v1/push`.
final class HapiPushHarness: Sendable {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let relay: RelayHarness
    let fcm: FakeFCM?
    private let fcmDirectory: URL

    var clock: ManualClock { relay.clock }
    var apns: FakeAPNs { relay.fake }

    /// `settings` are relay settings without the prefix; `fcm: false` leaves the Android lane unconfigured.
    init(settings: [String: String] = [:], fcm withFCM: Bool = true) async throws {
        let clock = ManualClock(milliseconds: SystemClock().nowMilliseconds)
        fcmDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("hapi-fcm-\(UUID().uuidString)")
        var settings = settings
        if withFCM {
            let fixture = try FakeFCMFixture(account: try Self.serviceAccountObject(), clock: clock, directory: fcmDirectory.path)
            for (name, value) in fixture.relayEnvironment { settings[String(name.dropFirst("PUSHGATE_RELAY_".count))] = value }
            fcm = fixture.fake
        } else {
            fcm = nil
        }
        relay = try await RelayHarness(settings: settings, clock: clock)
    }

    /// The `serviceAccount` object of `rs256-oauth.json`.
    static func serviceAccountObject() throws -> JSONObject {
        let url = packageRoot.appendingPathComponent("Fixtures/vectors/rs256-oauth.json")
        return try JSONValue.parse(Array(try Data(contentsOf: url)))["serviceAccount"]!.objectValue!
    }

    /// An envelope-shaped string of `length` characters (a multiple of 4).
    static func envelope(_ length: Int = 164) -> String { String(repeating: "QUJD", count: length / 4) }

    /// A request body as a hapi host builds it.
    static func body(platform: String = "ios", token: String, envelope: String = envelope(), collapseId: String? = "ready-s1",
                     priority: Int = 10) -> [UInt8] {
        var object = JSONObject([("platform", .string(platform)), ("token", .string(token)), ("envelope", .string(envelope))])
        if let collapseId { object["collapseId"] = .string(collapseId) }
        object["priority"] = .integer(Int64(priority))
        return JSONValue.object(object).serializedBytes()
    }

    /// `POST /v1/push` with `body`; the answer's status and JSON body (`null` when not JSON).
    func push(_ body: [UInt8], headers: [String: String] = [:]) async throws -> (status: Int, json: JSONValue) {
        let answer = try await relay.request("POST", "/v1/push", body: body, headers: ["content-type": "application/json"].merging(headers) { $1 })
        return (answer.status, (try? JSONValue.parse(answer.body)) ?? .null)
    }

    func stop() async {
        await relay.stop()
        fcm?.stop()
        try? FileManager.default.removeItem(at: fcmDirectory)
    }
}
