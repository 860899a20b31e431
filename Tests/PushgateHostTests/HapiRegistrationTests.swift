import PushgateCore
@testable import PushgateHost
import Testing
import PushgateTestSupport

/// protocol/hapi-push.md §11 lines 14–22: `POST`/`DELETE /api/devices/register` over loopback.
@Suite(.hangLimit(.minutes(1))) struct HapiRegistrationTests {
    /// 32 bytes whose padded base64 is 44 characters ending in `=`.
    static let key = Base64.encode((0..<32).map { UInt8($0 * 7 % 256) })

    static func body(token: String? = "tok-1", platform: String? = "ios", deviceId: String? = "install-1",
                     pushKey: JSONValue? = .string(key)) -> JSONValue {
        var object = JSONObject()
        if let token { object["token"] = .string(token) }
        if let platform { object["platform"] = .string(platform) }
        if let deviceId { object["deviceId"] = .string(deviceId) }
        if let pushKey { object["pushKey"] = pushKey }
        return .object(object)
    }

    static func register(_ harness: HostHarness, _ body: JSONValue) async throws -> (status: Int, json: JSONValue?) {
        try await harness.call("POST", "/api/devices/register", body)
    }

    static func devices(_ harness: HostHarness, namespace: String = "default") async throws -> [HapiDevice] {
        try await harness.service.store.hapiDevices(namespace: namespace)
    }

    @Test func iosWithPaddedOrUnpaddedKeyIsStoredPadded() async throws {
        let harness = try await HostHarness(mode: .off)
        #expect(Self.key.count == 44 && Self.key.hasSuffix("="))
        let answer = try await Self.register(harness, Self.body())
        #expect(answer.status == 200 && answer.json == .object(JSONObject([("ok", true)])))
        #expect(try await Self.devices(harness).map(\.pushKey) == [Self.key])
        let unpadded = try await Self.register(harness, Self.body(pushKey: .string(String(Self.key.dropLast()))))
        #expect(unpadded.status == 200)
        let stored = try await Self.devices(harness)
        #expect(stored.count == 1 && stored.first?.pushKey == Self.key)
        #expect(try await Self.register(harness, Self.body(pushKey: .string(Self.key + "="))).status == 200, "two = are allowed")
        #expect(harness.leaks([Self.key, String(Self.key.dropLast()), "tok-1"]).isEmpty)
        await harness.stop()
    }

    @Test func badKeysAreRefusedWithoutEchoingThem() async throws {
        let harness = try await HostHarness(mode: .off)
        let withDash = "-" + Self.key.dropFirst()
        let withUnderscore = "_" + Self.key.dropFirst()
        let badKeys: [(String, String)] = [
            ("ios", Base64.encode(Array(repeating: 1, count: 31))), ("ios", Base64.encode(Array(repeating: 1, count: 33))),
            ("ios", Base64.encode([1, 2, 3])), ("ios", String(withDash)), ("ios", String(withUnderscore)), ("phone", ""),
            ("phone", Base64.encode(Array(repeating: 1, count: 31))), ("ios", Self.key + "=="),
        ]
        for (platform, key) in badKeys {
            let answer = try await Self.register(harness, Self.body(platform: platform, pushKey: .string(key)))
            #expect(answer.status == 400, "\(platform) key of \(key.count) characters")
            #expect(answer.json?["error"] == "invalid_request" && answer.json?["field"] == "pushKey")
            let message = try #require(answer.json?["message"]?.stringValue)
            #expect(!key.isEmpty ? !message.contains(key) : true)
        }
        let number = try await Self.register(harness, Self.body(platform: "phone", pushKey: 5))
        #expect(number.status == 400 && number.json?["field"] == "pushKey")
        #expect(try await Self.devices(harness).isEmpty)
        await harness.stop()
    }

    @Test func keyPresenceByPlatform() async throws {
        let harness = try await HostHarness(mode: .off)
        let missing = try await Self.register(harness, Self.body(pushKey: nil))
        #expect(missing.status == 400 && missing.json?["field"] == "pushKey")
        #expect(try await Self.register(harness, Self.body(token: "p", platform: "phone", deviceId: "d-phone", pushKey: nil)).status == 200)
        #expect(try await Self.register(harness, Self.body(token: "w", platform: "wear", deviceId: "d-wear", pushKey: "!!!")).status == 200)
        #expect(try await Self.register(harness, Self.body(token: "w2", platform: "wear", deviceId: "d-wear2", pushKey: .string(Self.key))).status == 200)
        let rows = try await Self.devices(harness)
        #expect(Set(rows.map(\.token)) == ["p", "w", "w2"])
        #expect(rows.allSatisfy { $0.pushKey == nil }, "phone without key and wear (even with a valid key) store NULL")
        await harness.stop()
    }

    @Test func fieldsAreValidatedInOrder() async throws {
        let harness = try await HostHarness(mode: .off)
        func field(_ body: JSONValue) async throws -> JSONValue? {
            let answer = try await Self.register(harness, body)
            #expect(answer.status == 400)
            return answer.json?["field"]
        }
        #expect(try await field(Self.body(deviceId: "")) == "deviceId")
        #expect(try await field(Self.body(deviceId: String(repeating: "d", count: 129))) == "deviceId")
        #expect(try await field(Self.body(deviceId: String(repeating: "😀", count: 65))) == "deviceId", "130 UTF-16 units")
        #expect(try await field(Self.body(platform: "android")) == "platform")
        #expect(try await field(Self.body(token: "")) == "token")
        #expect(try await field(Self.body(token: "", platform: "android", deviceId: "")) == "token")
        #expect(try await field(Self.body(platform: "android", deviceId: "", pushKey: "bad")) == "platform")
        #expect(try await field(Self.body(deviceId: nil, pushKey: "bad")) == "deviceId")
        #expect(try await field(.array([])) == "body")
        let raw = try await harness.call("POST", "/api/devices/register", rawBody: Array("nope".utf8))
        #expect(raw.status == 400 && raw.json?["field"] == "body")
        var extra = Self.body(deviceId: String(repeating: "😀", count: 64)).objectValue!
        extra["language"] = .null
        extra["future"] = 1
        #expect(try await Self.register(harness, .object(extra)).status == 200, "128 UTF-16 units and unknown members are fine")
        let noBearer = try await harness.call("POST", "/api/devices/register", Self.body(), bearer: "")
        #expect(noBearer.status == 401 && noBearer.json == .object(JSONObject([("error", "unauthorized")])))
        #expect(try await harness.call("DELETE", "/api/devices/register", .object(JSONObject([("token", "x")])), bearer: "").status == 401)
        await harness.stop()
    }

    @Test func reRegistrationReplacesTokenAndKeyAndKeepsCreatedAt() async throws {
        let harness = try await HostHarness(mode: .off)
        #expect(try await Self.register(harness, Self.body(token: "old")).status == 200)
        let created = try #require(try await Self.devices(harness).first)
        harness.clock.advance(milliseconds: 5_000)
        let newKey = Base64.encode(Array(repeating: 9, count: 32))
        #expect(try await Self.register(harness, Self.body(token: "new", pushKey: .string(newKey))).status == 200)
        let rows = try await Self.devices(harness)
        #expect(rows.count == 1)
        #expect(rows.first?.token == "new" && rows.first?.pushKey == newKey)
        #expect(rows.first?.createdAtMs == created.createdAtMs && rows.first?.updatedAtMs == created.createdAtMs + 5_000)
        await harness.stop()
    }

    @Test func tokenMovesAcrossInstallsAndNamespaces() async throws {
        let harness = try await HostHarness(mode: .off)
        let store = harness.service.store
        try await store.registerHapiDevice(namespace: "other", token: "shared", platform: .ios, deviceId: "elsewhere", pushKey: Self.key)
        try await store.registerHapiDevice(namespace: "other", token: "kept", platform: .ios, deviceId: "keeper", pushKey: Self.key)
        #expect(try await Self.register(harness, Self.body(token: "shared", deviceId: "a")).status == 200)
        #expect(try await Self.devices(harness, namespace: "other").map(\.token) == ["kept"])
        #expect(try await Self.register(harness, Self.body(token: "shared", deviceId: "b")).status == 200)
        #expect(try await Self.devices(harness).map(\.deviceId) == ["b"])
        await harness.stop()
    }

    @Test func theStoreKnowsWithoutAReadWhetherHapiDevicesExist() async throws {
        let harness = try await HostHarness(mode: .off)
        let store = harness.service.store
        #expect(!store.mayHaveHapiDevices)
        try await store.registerHapiDevice(namespace: "a", token: "one", platform: .ios, deviceId: "d1", pushKey: Self.key)
        try await store.registerHapiDevice(namespace: "b", token: "two", platform: .ios, deviceId: "d2", pushKey: Self.key)
        #expect(store.mayHaveHapiDevices)
        try await store.unregisterHapiDevices(namespace: "a", token: "one")
        #expect(store.mayHaveHapiDevices, "namespace b still has a device")
        try await store.deleteHapiDevices(namespace: "b", token: "two")
        #expect(!store.mayHaveHapiDevices)
        let home = harness.home
        try await store.registerHapiDevice(namespace: "a", token: "three", platform: .ios, deviceId: "d3", pushKey: Self.key)
        await harness.stop()
        let reopened = try HostStore(path: home.path + "/host.sqlite", clock: ManualClock())
        #expect(reopened.mayHaveHapiDevices, "read from the file at open")
    }

    @Test func oneInstallMayHoldAPhoneAndAnIOSRow() async throws {
        let harness = try await HostHarness(mode: .off)
        #expect(try await Self.register(harness, Self.body(token: "t-ios", platform: "ios", deviceId: "same")).status == 200)
        #expect(try await Self.register(harness, Self.body(token: "t-phone", platform: "phone", deviceId: "same")).status == 200)
        #expect(Set(try await Self.devices(harness).map(\.platform)) == [.ios, .phone])
        await harness.stop()
    }

    @Test func unregisterRemovesOnlyTheCallersNamespace() async throws {
        let harness = try await HostHarness(mode: .off)
        let store = harness.service.store
        #expect(try await Self.register(harness, Self.body(token: "t1", deviceId: "a")).status == 200)
        #expect(try await Self.register(harness, Self.body(token: "t1", platform: "phone", deviceId: "a")).status == 200)
        try await store.registerHapiDevice(namespace: "other", token: "t2", platform: .ios, deviceId: "z", pushKey: Self.key)
        let gone = try await harness.call("DELETE", "/api/devices/register", .object(JSONObject([("token", "t1")])))
        #expect(gone.status == 200 && gone.json == .object(JSONObject([("ok", true)])))
        #expect(try await Self.devices(harness).isEmpty)
        let foreign = try await harness.call("DELETE", "/api/devices/register", .object(JSONObject([("token", "t2")])))
        #expect(foreign.status == 200)
        #expect(try await Self.devices(harness, namespace: "other").map(\.token) == ["t2"])
        #expect(try await harness.call("DELETE", "/api/devices/register", .object(JSONObject([("token", "unknown")]))).status == 200)
        let empty = try await harness.call("DELETE", "/api/devices/register", .object(JSONObject([("token", "")])))
        #expect(empty.status == 400 && empty.json?["field"] == "token")
        await harness.stop()
    }
}
