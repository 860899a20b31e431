import Foundation
import PushgateCore
@testable import PushgateHost
import Testing

/// protocol/host-api.md §9 line 21: OpenChamber token files.
@Suite struct ImportTests {
    private func store() throws -> HostStore {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        return try HostStore(path: home.path + "/host.sqlite", clock: ManualClock())
    }

    @Test func versionOneKeepsEveryTokenAndLocale() async throws {
        let store = try store()
        let json = #"""
        {"version":1,"tokensBySession":{"global":[{"token":"aa11","locale":"zh-Hant-TW","environment":"sandbox"},
         {"token":"bb22","locale":"pt"}],"legacy":["cc33"]}}
        """#
        let summary = try await OpenChamberImport.run(json: Array(json.utf8), into: store)
        #expect(summary.alertTokens == 3)
        let tokens = try await store.alertTokens().sorted { $0.token < $1.token }
        #expect(tokens.map(\.token) == ["aa11", "bb22", "cc33"])
        #expect(tokens.map(\.locale) == ["zh-Hant-TW", "pt", nil])
        #expect(tokens.map(\.environment) == ["sandbox", "production", "production"])
    }

    @Test func versionTwoKeepsLiveActivityTokensSnapshotsAndVersions() async throws {
        let store = try store()
        let json = #"""
        {"version":2,"tokensBySession":{"global":[{"token":"aa11","locale":"fr"}]},
         "liveActivityTokensBySession":{"s1":[{"token":"dd44","activityId":"act-1","client":"phone-1",
           "items":[{"sessionID":"s1","title":"Build","status":"working","startedAt":1764669600}]}]},
         "liveActivityEventVersions":{"s1":1764669600123,"live":1764669600456}}
        """#
        let summary = try await OpenChamberImport.run(json: Array(json.utf8), into: store)
        #expect(summary == OpenChamberImport.Summary(alertTokens: 1, liveActivityTokens: 1, eventVersions: 2))
        let live = try await store.liveActivityTokens()
        #expect(live.map(\.token) == ["dd44"])
        #expect(live.first?.activityId == "act-1" && live.first?.sessionId == "s1" && live.first?.client == "phone-1")
        #expect(try JSONValue.parse(live.first?.snapshotJSON ?? "") ==
                (try JSONValue.parse(#"[{"sessionID":"s1","title":"Build","status":"working","startedAt":1764669600}]"#)))
        #expect(try await store.eventVersions() == ["s1": 1764669600123, "live": 1764669600456])
        #expect(try await store.alertTokens().map(\.locale) == ["fr"])
    }

    @Test func openChamberEntriesKeepTheirTimesAndAndroidTokensTheirPlatform() async throws {
        let store = try store()
        let json = #"""
        {"version":2,"tokensBySession":{"ui-session-1":[
          {"deviceToken":"aa11","createdAt":1764669600000,"lastSeenAt":1764669700000,"userAgent":"OpenChamber/1",
           "platform":"ios","locale":"ja"},
          {"deviceToken":"fcm-token:APA91b","platform":"android","locale":"en","lastSeenAt":1764669800000}]},
         "liveActivityTokensBySession":{},"liveActivityEventVersions":{}}
        """#
        let summary = try await OpenChamberImport.run(json: Array(json.utf8), into: store)
        #expect(summary == OpenChamberImport.Summary(alertTokens: 2, androidTokens: 1))
        let tokens = try await store.alertTokens().sorted { $0.token < $1.token }
        #expect(tokens.first == AlertToken(token: "aa11", locale: "ja", createdAtMs: 1764669600000, lastSeenAtMs: 1764669700000))
        #expect(tokens.last?.token == "fcm-token:APA91b" && tokens.last?.platform == .android && tokens.last?.locale == "en")
        #expect(tokens.last?.lastSeenAtMs == 1764669800000)
    }

    @Test func unknownVersionIsRefused() async throws {
        let store = try store()
        await #expect(throws: HostSettingsError.self) {
            try await OpenChamberImport.run(json: Array(#"{"version":3,"tokensBySession":{}}"#.utf8), into: store)
        }
        #expect(try await store.alertTokens().isEmpty)
    }

    @Test func commandLineImportsIntoTheHome() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let file = home.path + "/apns-tokens.json"
        try #"{"version":1,"tokensBySession":{"g":["aa11"]}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await HostMain.run(arguments: ["import-openchamber", file], environment: home.environment()) == 0)
        #expect(await HostMain.run(arguments: ["import-openchamber", file, "--environment", "staging"],
                                   environment: home.environment()) == 2)
        #expect(await HostMain.run(arguments: ["import-openchamber", file, "--environment", "sandbox"],
                                   environment: home.environment()) == 0)
        try #"{"version":9}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await HostMain.run(arguments: ["import-openchamber", file], environment: home.environment()) == 2)
        let store = try HostStore(path: home.path + "/host.sqlite", clock: ManualClock())
        #expect(try await store.alertTokens().map(\.token) == ["aa11"])
        #expect(try await store.alertTokens().map(\.environment) == ["sandbox"])
    }
}
