import Foundation
import PushgateCore
@testable import PushgateHost
import Testing

/// host.md §8 and the persisted badge of §4 (§9 line 10, restart part).
@Suite struct StoreTests {
    @Test func tokensBadgeAndRegistrationsSurviveReopen() async throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path, withIntermediateDirectories: true)
        let path = home.path + "/host.sqlite"
        let clock = ManualClock()
        do {
            let store = try HostStore(path: path, clock: clock)
            try await store.upsertAlertToken(AlertToken(token: "ab", locale: "fr", environment: "sandbox"))
            clock.advance(milliseconds: 10)
            try await store.upsertAlertToken(AlertToken(token: "ab", locale: "ja", environment: "production"))
            #expect(try await store.addBadgeTag("ready-s1") == 1)
            #expect(try await store.addBadgeTag("question-s1") == 2)
            #expect(try await store.addBadgeTag("ready-s1") == 2)
            try await store.markRegistered(relayURL: "http://a", token: "ab", kind: "alert")
        }
        let store = try HostStore(path: path, clock: clock)
        let tokens = try await store.alertTokens()
        #expect(tokens.count == 1)
        #expect(tokens[0].locale == "ja" && tokens[0].environment == "production")
        #expect(tokens[0].lastSeenAtMs == tokens[0].createdAtMs + 10)
        #expect(try await store.badgeCount() == 2)
        #expect(try await store.isRegistered(relayURL: "http://a", token: "ab", kind: "alert"))
        try await store.clearRegistrations(except: "http://b")
        #expect(try await !store.isRegistered(relayURL: "http://a", token: "ab", kind: "alert"))
        try await store.clearBadge()
        #expect(try await store.badgeCount() == 0)
        #expect(try await store.deleteAlertToken("ab"))
        #expect(try await !store.deleteAlertToken("ab"))
    }
}
