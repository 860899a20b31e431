import PushgateCore
@testable import PushgateHost
import Testing

/// protocol/host-api.md §9 line 14 and the tag table of §3.
@Suite struct TagTests {
    @Test func tagsFollowTheTypeTable() {
        func tag(_ type: EventType, requestId: String? = nil) -> String {
            NotificationTag.make(for: HostEvent(type: type, sessionId: "s1", requestId: requestId))
        }
        #expect(tag(.ready) == "ready-s1")
        #expect(tag(.question) == "question-s1")
        #expect(tag(.permission, requestId: "r9") == "permission-r9")
        #expect(tag(.permission) == "permission-s1")
        #expect([tag(.goalComplete), tag(.goalBlocked), tag(.goalBudget)] == ["goal-s1", "goal-s1", "goal-s1"])
        #expect(tag(.error) == "error-s1")
        #expect([tag(.taskComplete), tag(.taskError)] == ["task-s1", "task-s1"])
        #expect(tag(.update) == "update-s1")
        #expect(EventType(wire: "brand_new") == .update)
    }

    @Test func longTagsBecomeHashesNeverCutMidCharacter() {
        let exact = "ready-" + String(repeating: "a", count: 58)
        #expect(NotificationTag.bounded(exact) == exact)
        let long = exact + "b"
        let hashed = NotificationTag.bounded(long)
        let digest = Hex.encode(SHA256.hash(Array(long.utf8)))
        #expect(hashed == "h-" + digest.prefix(40))
        #expect(hashed.utf8.count == 42)
        // 20 × 3-byte CJK + "ready-" = 66 bytes; 15 emoji × 4 + 6 = 66 bytes.
        for sid in [String(repeating: "会", count: 20), String(repeating: "🚀", count: 15)] {
            let tag = NotificationTag.make(for: HostEvent(type: .ready, sessionId: sid))
            #expect(tag.hasPrefix("h-") && tag.utf8.count == 42)
            #expect(tag.unicodeScalars.allSatisfy { $0.isASCII })
        }
        let fits = NotificationTag.make(for: HostEvent(type: .ready, sessionId: String(repeating: "会", count: 19)))
        #expect(fits == "ready-" + String(repeating: "会", count: 19))
    }
}
