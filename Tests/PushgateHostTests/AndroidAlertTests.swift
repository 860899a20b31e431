import Foundation
@testable import PushgateCore
@testable import PushgateHost
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/host.md "Android alert tokens" (issue 22 item 4): FCM tokens registered with
/// `platform: "android"` are bound on the relay as Android and reach the phone in the same
/// signed send as the iOS tokens; in direct mode they go straight to a fake FCM as notification
/// messages. Most cases use the stub relay, which scripts rows per token; the first two run the
/// whole chain: host → pushgate-relay (real signatures) → fake APNs and fake FCM.
@Suite(.hangLimit(.minutes(1))) struct AndroidAlertTests {
    static let noTicks = ["PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS": "0"]

    @Test func throughTheRelayTheFakeAPNsAndTheFakeFCMEachGetTheirPush() async throws {
        let harness = try await HostHarness(androidAlert: .relay, hostEnvironment: Self.noTicks)
        let fcm = try #require(harness.fakeFCM)
        let iphone = TestToken.make(), pixel = TestToken.android("pixel"), gone = TestToken.android("gone")
        try await harness.register(iphone, locale: "fr")
        try await harness.register(pixel, platform: "android", locale: "fr")
        try await harness.register(gone, platform: "android", locale: "fr")
        #expect(harness.relayCount("register") == 3)
        fcm.script(token: gone, FakeFCMScript(.unregistered))

        let result = try await harness.event("error", "s1", name: "deploy")
        #expect(result["accepted"] == 2 && result["dropped"] == 1 && result["failed"] == 0)
        #expect(harness.relayCount("send") == 1, "one signed send for the iOS and the Android tokens")
        let apns = harness.payloads(iphone)
        let title = try Fixtures.titles().title("error", locale: "fr")
        #expect(apns.count == 1 && apns.first?["aps"]?["alert"]?["title"] == .string(title))
        let android = fcm.sends.filter { $0.deviceToken == pixel }
        #expect(android.count == 1 && android.first?.status == 200)
        #expect(android.first?.notificationTitle == title && android.first?.notificationBody == "deploy")
        #expect(android.first?.androidNotification?["tag"] == "error-s1" && android.first?.androidNotification?["notification_count"] == 1)
        #expect(android.first?.message?["data"]?["eventId"] == result["eventId"])
        #expect(Set(try await harness.service.store.alertTokens().map(\.token)) == [iphone, pixel],
                "FCM's UNREGISTERED comes back drop:true and the host forgets the token")

        #expect(try await harness.call("DELETE", "/api/push/apns-token", ["token": .string(pixel)]).status == 200)
        #expect(harness.relayCount("unregister") == 1, "the Android binding is removed with a signed android unregister")
        #expect(try await harness.event("error", "s2")["accepted"] == 1)
        #expect(fcm.sends.filter { $0.deviceToken == pixel }.count == 1)
        await harness.stop()
    }

    @Test func aRelayWithoutAnAndroidAccountStillDeliversTheIOSTokens() async throws {
        let harness = try await HostHarness(hostEnvironment: Self.noTicks)
        let iphone = TestToken.make(), pixel = TestToken.android()
        try await harness.register(iphone)
        try await harness.register(pixel, platform: "android")
        #expect(harness.relayCount("register", status: 501) == 1)
        for session in ["s1", "s2"] {
            let result = try await harness.event("error", session)
            #expect(result["accepted"] == 1 && result["failed"] == 1)
        }
        #expect(harness.payloads(iphone).count == 2)
        #expect(harness.relayCount("register", status: 501) == 1, "the Android token waits 10 minutes before it is tried again")
        #expect(harness.logs.lines.contains { $0.contains("relay does not take Android tokens") && $0.contains("ANDROID_FCM_SERVICE_ACCOUNT_PATH") })
        await harness.stop()
    }

    @Test func androidTokensAreCheckedStoredAndBoundAsAndroid() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, _ in
            func answer(_ fields: [(String, JSONValue)], _ method: String = "POST") async throws -> (Int, JSONValue?) {
                let reply = try await harness.call(method, "/api/push/apns-token", .object(JSONObject(fields)))
                return (reply.status, reply.json?["field"])
            }
            let phone = TestToken.android()
            #expect(try await answer([("token", .string(phone)), ("platform", "android"), ("locale", "ja")]) == (200, nil))
            for bad in ["short:APA91b", String(repeating: "a", count: 513), "phone:APA91b/" + String(repeating: "x", count: 40)] {
                #expect(try await answer([("token", .string(bad)), ("platform", "android")]) == (400, "token"), "\(bad)")
            }
            #expect(try await answer([("token", .string(phone))]) == (400, "token"), "without a platform a token is an APNs token")
            #expect(try await answer([("token", .string(phone)), ("platform", "web")]) == (400, "platform"))

            let registration = try #require(stub.requests("register-token").last)
            #expect(registration["token"] == .string(phone) && registration["platform"] == "android")
            let stored = try await harness.service.store.alertTokens()
            #expect(stored.map(\.platform) == [.android] && stored.first?.locale == "ja")
            let status = try await harness.call("GET", "/api/status").json?["androidAlertPush"]
            #expect(status?["mode"] == "relay" && status?["transport"] == "relay" && status?["tokens"] == 1)

            // DELETE needs no platform: the stored one (else the token's form) says how it was bound.
            #expect(try await answer([("token", .string(phone))], "DELETE") == (200, nil))
            #expect(stub.requests("unregister-token").last?["platform"] == "android")
            #expect(try await harness.service.store.alertTokens().isEmpty)
            #expect(harness.leaks([phone]).isEmpty)
        }
    }

    @Test func anEventReachesIOSAndAndroidTokensInOneSignedSend() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, iphone in
            let pixel = TestToken.android("pixel"), galaxy = TestToken.android("galaxy")
            try await harness.register(iphone, locale: "ja")
            try await harness.register(pixel, platform: "android", locale: "ja-JP")
            try await harness.register(galaxy, platform: "android", locale: "en")
            let result = try await harness.event("error", "s1", name: "write-docs")
            #expect(result["accepted"] == 3 && result["failed"] == 0)
            let titles = try Fixtures.titles()
            let sends = stub.sends
            #expect(sends.count == 2, "one send per locale, iOS and Android tokens together")
            let japanese = try #require(sends.first { $0["tokens"]?.arrayValue?.contains(.string(iphone)) == true })
            #expect(japanese["tokens"] == .array([.string(iphone), .string(pixel)]))
            #expect(japanese["title"] == .string(titles.title("error", locale: titles.normalize("ja"))))
            let english = try #require(sends.first { $0["tokens"] == .array([.string(galaxy)]) })
            #expect(english["title"] == .string(titles.title("error", locale: "en")))
            for send in sends {
                #expect(send["body"] == "write-docs" && send["badge"] == 1 && send["collapseId"] == "error-s1")
                #expect(send["data"]?["sessionId"] == "s1" && send["data"]?["eventId"] == result["eventId"])
            }
            let health = try await harness.call("GET", "/api/status").json?["androidAlertPush"]?["health"]
            #expect(health?["state"] == "ok")
        }
    }

    @Test func deadAndLostAndroidTokensAreHandledAsIOSOnes() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        try await HostHarness.with(relayURL: stub.url, hostEnvironment: Self.noTicks) { harness, iphone in
            let dead = TestToken.android("dead"), lost = TestToken.android("lost"), busy = TestToken.android("busy")
            try await harness.register(iphone)
            for token in [dead, lost, busy] { try await harness.register(token, platform: "android") }
            stub.answer(dead, with: JSONObject([("ok", false), ("drop", true), ("reason", "dead")]))
            stub.answer(busy, with: JSONObject([("ok", false), ("reason", "transient"), ("retryable", true)]))
            stub.unbind(lost)
            let result = try await harness.event("error", "s1")
            #expect(result["accepted"] == 2 && result["dropped"] == 1 && result["failed"] == 1 && result["queued"] == 1)
            #expect(Set(try await harness.service.store.alertTokens().map(\.token)) == [iphone, lost, busy])
            let repair = try #require(stub.requests("register-token").last)
            #expect(repair["token"] == .string(lost) && repair["platform"] == "android", "a lost binding is made again as Android")
            #expect(stub.sends.last?["tokens"] == .array([.string(lost)]))

            // The outbox sends the Android push again, the same alert, once the relay takes it.
            stub.answer(busy, with: nil)
            await harness.advanceOutbox(byMs: 1_000)
            let retry = try #require(stub.sends.last)
            #expect(retry["tokens"] == .array([.string(busy)]) && retry["title"] == stub.sends[0]["title"] && retry["badge"] == 1)
            let outbox = try await harness.outbox()
            #expect(outbox["delivered"] == 1 && outbox["depth"] == 0)
        }
    }

    @Test func directModeSendsNotificationMessagesAndForgetsDeadTokens() async throws {
        let stub = try StubRelay()
        defer { stub.stop() }
        let harness = try await HostHarness(androidAlert: .direct, relayURL: stub.url, hostEnvironment: Self.noTicks)
        let fcm = try #require(harness.fakeFCM)
        let iphone = TestToken.make()
        let ok = TestToken.android("ok"), gone = TestToken.android("gone"), invalid = TestToken.android("invalid"),
            busy = TestToken.android("busy"), other = TestToken.android("other")
        try await harness.register(iphone)
        for token in [ok, gone, invalid, busy, other] { try await harness.register(token, platform: "android", locale: "en") }
        fcm.script(token: gone, FakeFCMScript(.unregistered))
        fcm.script(token: invalid, FakeFCMScript(.invalidToken))
        fcm.script(token: busy, FakeFCMScript(.unavailable))
        fcm.script(token: other, FakeFCMScript(.senderIdMismatch))
        #expect(stub.requests("register-token").count == 1, "direct-mode Android tokens are not bound on the relay")
        #expect(try await harness.call("GET", "/api/status").json?["androidAlertPush"]?["transport"] == "fcm")

        let result = try await harness.event("ready", "s1", name: "refactor-auth")
        #expect(result["accepted"] == 2 && result["dropped"] == 2 && result["failed"] == 2 && result["queued"] == 1)
        #expect(stub.sends.map { $0["tokens"] } == [.array([.string(iphone)])])
        let sent = try #require(fcm.sends.first { $0.deviceToken == ok })
        let titles = try Fixtures.titles()
        #expect(sent.status == 200)
        #expect(sent.notificationTitle == titles.title("ready", locale: "en") && sent.notificationBody == "refactor-auth")
        #expect(sent.androidNotification?["tag"] == "ready-s1" && sent.androidNotification?["channel_id"] == "default")
        #expect(sent.androidNotification?["notification_count"] == .integer(1))
        #expect(sent.message?["data"]?["sessionId"] == "s1" && sent.message?["data"]?["eventId"] == result["eventId"])
        #expect(sent.message?["android"]?["ttl"] == "3600s" && sent.message?["android"]?["priority"] == "HIGH")
        #expect(Set(try await harness.service.store.alertTokens().map(\.token)) == [iphone, ok, busy, other],
                "UNREGISTERED and an INVALID_ARGUMENT naming the token delete it; other failures keep it")

        // A passing failure is sent again by the outbox; SENDER_ID_MISMATCH is not.
        fcm.clearScripts()
        await harness.advanceOutbox(byMs: 1_000)
        #expect(fcm.sends.filter { $0.deviceToken == busy }.map(\.status) == [503, 200])
        #expect(fcm.sends.filter { $0.deviceToken == other }.count == 1)
        let outbox = try await harness.outbox()
        #expect(outbox["delivered"] == 1 && outbox["depth"] == 0)
        #expect(harness.leaks([ok, gone, "refactor-auth"]).isEmpty)
        await harness.stop()
    }

    @Test func settingsNameTheAlertLaneApartFromHapisAndroidLane() throws {
        let home = TemporaryHome()
        let defaults = try HostSettings.load(environment: home.environment([:]))
        #expect(defaults.androidAlertPushMode == .relay && defaults.directFCMAlerts == nil)

        let unknown = try HostSettings.load(environment: TemporaryHome().environment(["PUSHGATE_ANDROID_ALERT_PUSH": "fcm"]))
        #expect(unknown.androidAlertPushMode == .relay)
        #expect(unknown.diagnostics.contains { $0.contains("PUSHGATE_ANDROID_ALERT_PUSH") })

        // hapi's account does not stand in for the alert lane's.
        let account = home.path + "/service-account.json"
        let vector = try JSONValue.parse(Fixtures.bytes("vectors/rs256-oauth.json"))
        try (vector["serviceAccount"] ?? .null).serialized().write(toFile: account, atomically: true, encoding: .utf8)
        let noAccount = try HostSettings.load(environment: TemporaryHome().environment([
            "PUSHGATE_ANDROID_ALERT_PUSH": "direct", "PUSHGATE_FCM_SERVICE_ACCOUNT_PATH": account,
        ]))
        #expect(noAccount.androidAlertPushMode == .off)
        #expect(noAccount.diagnostics.contains { $0.contains("Android alert push is off") && $0.contains("PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH") })

        let direct = try HostSettings.load(environment: TemporaryHome().environment([
            "PUSHGATE_ANDROID_ALERT_PUSH": "direct", "PUSHGATE_ANDROID_ALERT_FCM_SERVICE_ACCOUNT_PATH": account,
            "PUSHGATE_ANDROID_ALERT_PACKAGE_NAME": "dev.pushgate.app", "PUSHGATE_ANDROID_ALERT_CHANNEL_ID": "alerts",
        ]))
        #expect(direct.androidAlertPushMode == .direct && direct.hapi.androidPushMode == "auto")
        #expect(direct.directFCMAlerts?.channelId == "alerts" && direct.directFCMAlerts?.packageName == "dev.pushgate.app")
        #expect(direct.directFCMAlerts?.account.projectId == "pushgate-test")
    }
}
