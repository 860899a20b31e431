import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateCore
@testable import PushgateHost
import PushgateRelay
import PushgateTesting
import Synchronization
import Testing

/// A host with hapi devices on one manual clock, wired to a fake APNs over loopback: directly
/// (`ios: "apns"`), through a real Pushgate relay's `POST /v1/push` (`realRelay`, its Android
/// lane to a fake FCM), or through a relay whose URL is given (a scripted one); with
/// `android: "fcm"` the host's direct FCM lane goes to the fake FCM. The host API listens on
/// loopback; a recording web fallback sees the §10 gate's branch.
final class HapiHarness: Sendable {
    static let bundleId = "run.hapi.tests"
    static let keyId = "KEYID12345"
    static let teamId = "TEAMID1234"

    let clock: ManualClock
    let scheduler: ManualScheduler
    let fake: FakeAPNs
    /// The fake FCM of `android: "fcm"` (the host's) or of `realRelay` (the relay's Android lane).
    let fakeFCM: FakeFCM?
    /// The real relay of `realRelay`.
    let relay: RelayServer?
    let home: TemporaryHome
    let apnsKey: P256PrivateKey
    let caFile: String
    let logs = Logger.MemorySink()
    let web = RecordingWebFallback()
    let service: HostService
    let api: HostAPI

    /// `ios` and `android` are the host's modes; `relayURL` the relay both relay lanes use.
    init(ios: String = "apns", android: String = "off", relayURL: String? = nil, realRelay: Bool = false,
         environment extra: [String: String] = [:], clock: ManualClock? = nil) async throws {
        self.clock = clock ?? ManualClock(milliseconds: SystemClock().nowMilliseconds)
        scheduler = ManualScheduler(clock: self.clock)
        apnsKey = P256PrivateKey()
        var fakeConfiguration = FakeAPNs.Configuration()
        fakeConfiguration.credentials = .init(publicKey: apnsKey.publicKey, keyId: Self.keyId, teamId: Self.teamId)
        fakeConfiguration.clock = self.clock
        fake = try FakeAPNs(configuration: fakeConfiguration)
        home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        caFile = home.path + "/fake-apns-ca.pem"
        try fake.writeCertificate(to: caFile)
        let fakeOrigin = "https://127.0.0.1:\(fake.port)"
        var environment = extra
        environment["PUSHGATE_IOS_PUSH"] = ios
        environment["PUSHGATE_ANDROID_PUSH"] = android
        environment["PUSHGATE_HOST_LISTEN"] = "127.0.0.1:0"
        var fakeFCM: FakeFCM?
        var fcmEnvironment: [String: String] = [:]
        if android == "fcm" || realRelay {
            let accountPath = home.path + "/service-account.json"
            let accountJSON = try #require(try JSONValue.parse(Fixtures.bytes("vectors/rs256-oauth.json"))["serviceAccount"])
            try Data(accountJSON.serializedBytes()).write(to: URL(fileURLWithPath: accountPath))
            var fcmConfiguration = FakeFCM.Configuration()
            fcmConfiguration.credentials = try FakeFCM.Credentials(account: ServiceAccount(json: accountJSON.serializedBytes()))
            fcmConfiguration.clock = self.clock
            let fake = try FakeFCM(configuration: fcmConfiguration)
            let fcmCA = home.path + "/fake-fcm-ca.pem"
            try fake.certificatePEM.write(toFile: fcmCA, atomically: true, encoding: .utf8)
            fcmEnvironment = fake.relayEnvironment(serviceAccountPath: accountPath, caFile: fcmCA)
            fakeFCM = fake
        }
        self.fakeFCM = fakeFCM
        var relayURL = relayURL
        if realRelay {
            var relayEnvironment = try fake.relayEnvironment(apnsKey: apnsKey, keyId: Self.keyId, teamId: Self.teamId,
                                                             bundleId: Self.bundleId, caFile: caFile,
                                                             databasePath: home.path + "/relay.sqlite")
            relayEnvironment.merge(fcmEnvironment) { old, _ in old }
            let configuration = try RelayConfiguration(arguments: [], environment: relayEnvironment)
            let relayLogger = Logger(component: "relay", minimumLevel: .debug, sink: logs)
            let relay = try await RelayServer(configuration: configuration,
                                              channel: configuration.makeChannel(clock: self.clock, logger: relayLogger),
                                              scheduler: scheduler, logger: relayLogger)
            self.relay = relay
            relayURL = "http://127.0.0.1:\(relay.port)"
        } else {
            relay = nil
        }
        if let relayURL { environment["PUSHGATE_PUSH_RELAY_URL"] = relayURL }
        if android == "fcm" {
            // The host's own FCM lane: the same variables without the relay prefix.
            for (name, value) in fcmEnvironment { environment[name.replacingOccurrences(of: "PUSHGATE_RELAY_", with: "PUSHGATE_")] = value }
        }
        if ios == "apns" {
            environment.merge([
                "PUSHGATE_APNS_KEY_ID": Self.keyId, "PUSHGATE_APNS_TEAM_ID": Self.teamId, "PUSHGATE_APNS_BUNDLE_ID": Self.bundleId,
                "PUSHGATE_APNS_P8": try apnsKey.pkcs8PEM, "PUSHGATE_APNS_HOST_PRODUCTION": fakeOrigin,
                "PUSHGATE_APNS_HOST_SANDBOX": fakeOrigin, "PUSHGATE_APNS_CA_FILE": caFile,
            ]) { old, _ in old }
        }
        let settings = try HostSettings.load(environment: home.environment(environment))
        let logger = Logger(component: "host", minimumLevel: .debug, sink: logs)
        service = try HostService(settings: settings, scheduler: scheduler, logger: logger, titles: try Fixtures.titles(),
                                  webFallback: web)
        try await service.start()
        api = try HostAPI(service: service, host: "127.0.0.1", port: 0, logger: logger)
    }

    func stop() async {
        await api.shutdown(grace: .seconds(1))
        await service.shutdown()
        if let relay { await relay.shutdown(graceSeconds: 1) }
        fake.stop()
        fakeFCM?.stop()
    }

    /// A host API call with the right bearer token.
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> (status: Int, json: JSONValue?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(api.port)\(path)")!)
        request.httpMethod = method
        if let body { request.httpBody = Data(body.serializedBytes()) }
        request.setValue("Bearer \(service.settings.accessToken)", forHTTPHeaderField: "authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, try? JSONValue.parse(Array(data)))
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

    /// Log lines that contain any of `secrets`.
    func leaks(_ secrets: [String]) -> [String] { logs.lines.filter { line in secrets.contains { line.contains($0) } } }
}

/// Opens what a device received, as its notification service extension would.
enum DeviceSide {
    /// The payload of an APNs request's `hapi` object, after checking the placeholder alert.
    static func open(_ request: RecordedRequest, key: HapiPushKey) throws -> (payload: HapiPayload, envelope: String) {
        let payload = try require(request.payload, "no payload")
        let aps = try require(payload["aps"], "no aps")
        guard aps["alert"]?["title"] == "HAPI", aps["alert"]?["body"] == "New activity", aps["mutable-content"] == 1,
              payload["hapi"]?["v"] == 1 else { throw DeviceSideError(message: "not the placeholder alert") }
        let envelope = try require(payload["hapi"]?["e"]?.stringValue, "no envelope")
        return (try HapiPayload(plaintext: HapiEnvelope.open(envelope, key: key)), envelope)
    }

    /// The plaintext bytes of an envelope.
    static func plaintext(_ envelope: String, key: HapiPushKey) throws -> String {
        String(decoding: try HapiEnvelope.open(envelope, key: key), as: UTF8.self)
    }

    private static func require<T>(_ value: T?, _ message: String) throws -> T {
        guard let value else { throw DeviceSideError(message: message) }
        return value
    }
}

struct DeviceSideError: Error {
    let message: String
}

/// The web side of §10, recording which branch it was asked for.
final class RecordingWebFallback: WebFallbackChannel {
    private let state = Mutex<(visible: Int, calls: [String])>((0, []))

    /// How many visible web clients receive a toast.
    func setVisibleClients(_ count: Int) { state.withLock { $0.visible = count } }
    var calls: [String] { state.withLock { $0.calls } }
    func reset() { state.withLock { $0.calls = [] } }

    func showToast(_ notification: WebFallbackNotification) async -> Int {
        state.withLock { state in
            state.calls.append("toast")
            return state.visible
        }
    }

    func sendWebPush(_ notification: WebFallbackNotification) async {
        state.withLock { $0.calls.append("webPush") }
    }
}
