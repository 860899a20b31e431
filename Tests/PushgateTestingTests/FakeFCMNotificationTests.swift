import PushgateCore
import PushgateProviders
import PushgateTesting
import Testing
import PushgateTestSupport

/// The fake FCM's checks of notification messages (docs/fake-fcm.md): `message.notification`
/// and `message.android.notification` members and types, as FCM HTTP v1 refuses them, and the
/// records that show what a phone would display.
@Suite(.hangLimit(.minutes(1))) struct FakeFCMNotificationTests {
    /// The project's own builder: what the relay and a host in direct mode send.
    static func alert(token: String = "fcm-token-1") -> String {
        let message = FCMMessage.alert(token: token, title: "Needs your answer", body: "write-docs",
                                       data: [("sessionId", "s1"), ("eventId", "e1")], collapseId: "question-s1", badge: 3,
                                       channelId: "default", packageName: "dev.pushgate.app", ttlSeconds: 3600)
        return String(decoding: message.body, as: UTF8.self)
    }

    /// A message to `fcm-token-1` with `notification` and `android` members as given.
    static func message(notification: String = #"{"title":"t"}"#, android: String = #"{"priority":"HIGH"}"#) -> String {
        #"{"message":{"token":"fcm-token-1","notification":\#(notification),"android":\#(android)}}"#
    }

    @Test func theAlertBuilderIsAcceptedAndRecordedWithWhatThePhoneShows() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        #expect(try await harness.send(Self.alert(), accessToken: accessToken).status == 200)
        let send = try #require(harness.fake.sends.first)
        #expect(send.notificationTitle == "Needs your answer" && send.notificationBody == "write-docs")
        #expect(send.androidNotification?["tag"] == "question-s1" && send.androidNotification?["channel_id"] == "default")
        #expect(send.androidNotification?["notification_count"] == .integer(3))
        #expect(send.message?["data"]?["eventId"] == "e1")
        // A script still answers a valid notification message per token; the record keeps what was asked.
        harness.fake.script(token: "gone", FakeFCMScript(.unregistered))
        #expect(try await harness.send(Self.alert(token: "gone"), accessToken: accessToken).googleError.code == "UNREGISTERED")
        #expect(harness.fake.sends.last?.notificationTitle == "Needs your answer")
    }

    @Test func everyAndroidNotificationMemberFCMKnowsIsAccepted() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        let full = #"""
        {"priority":"NORMAL","notification":{"title":"t","body":"b","icon":"ic","color":"#1a2B3c","sound":"default",
         "tag":"x","click_action":"OPEN","body_loc_key":"k","body_loc_args":["a"],"title_loc_key":"k","title_loc_args":[],
         "channel_id":"c","ticker":"t","sticky":false,"event_time":"2026-12-03T10:00:00Z","local_only":true,
         "default_sound":true,"default_vibrate_timings":false,"default_light_settings":false,"vibrate_timings":["0.5s"],
         "light_settings":{"color":{"red":1}},"image":"https://example.com/i.png","bypass_proxy_notification":false,
         "notification_count":0,"notification_priority":"PRIORITY_HIGH","visibility":"PRIVATE","proxy":"DENY"}}
        """#
        let response = try await harness.send(Self.message(notification: #"{"title":"t","body":"b","image":"i"}"#, android: full),
                                              accessToken: accessToken)
        #expect(response.status == 200)
    }

    @Test func unknownMembersAndWrongTypesAreRefusedNamingTheMember() async throws {
        let harness = try FakeFCMHarness()
        let accessToken = try await harness.accessToken()
        let cases: [(String, String)] = [
            (Self.message(notification: #"{"title":"t","badge":"3"}"#), "message.notification.badge"),
            (Self.message(notification: #"{"title":7}"#), "message.notification.title"),
            (Self.message(notification: #""t""#), "message.notification"),
            (Self.message(android: #"{"notification":{"channelld":"c"}}"#), "message.android.notification.channelld"),
            (Self.message(android: #"{"notification":{"notification_count":"3"}}"#), "message.android.notification.notification_count"),
            (Self.message(android: #"{"notification":{"notification_count":3.5}}"#), "message.android.notification.notification_count"),
            (Self.message(android: #"{"notification":{"notification_count":4294967296}}"#),
             "message.android.notification.notification_count"),
            (Self.message(android: #"{"notification":{"notification_priority":"HIGH"}}"#),
             "message.android.notification.notification_priority"),
            (Self.message(android: #"{"notification":{"color":"red"}}"#), "message.android.notification.color"),
            (Self.message(android: #"{"notification":{"sticky":"yes"}}"#), "message.android.notification.sticky"),
            (Self.message(android: #"{"notification":{"body_loc_args":[1]}}"#), "message.android.notification.body_loc_args"),
            (Self.message(android: #"{"notification":[]}"#), "message.android.notification"),
        ]
        for (body, field) in cases {
            let response = try await harness.send(body, accessToken: accessToken)
            #expect(response.status == 400, "\(body)")
            #expect(response.googleError.status == "INVALID_ARGUMENT", "\(body)")
            #expect(response.googleError.fields == [field], "\(body)")
        }
        #expect(harness.fake.counters.sendsByStatus[400] == cases.count)
    }
}
