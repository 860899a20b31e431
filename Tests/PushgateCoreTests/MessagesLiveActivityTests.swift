import Testing
import PushgateCore

@Suite struct MessagesLiveActivityTests {
    // Computed, not stored: LeakSanitizer cannot follow a static JSON value's tagged pointers (docs/architecture.md, "Sanitizers").
    static var baseState: JSONValue { ["status": "working", "eventVersion": 1, "updatedAt": 1764669600.5] }

    static func push(_ members: [(String, JSONValue)], state: JSONValue = baseState) throws(WireFieldError) -> LiveActivityPush {
        var body: JSONObject = ["tokens": ["aa"], "event": "update", "contentState": state]
        for (key, value) in members { body[key] = value }
        return try LiveActivityPush(json: .object(body))
    }

    static func state(_ changes: [(String, JSONValue?)]) -> JSONValue {
        var object = baseState.objectValue!
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }

    @Test func readsAValidPush() throws {
        let push = try Self.push([("staleDate", 1764670800), ("env", "sandbox")])
        #expect(push.tokens == ["aa"])
        #expect(push.event == .update)
        #expect(push.contentState.updatedAt == 1764669600.5)
        #expect(push.staleDate == 1764670800)
        #expect(push.dismissalDate == nil)
    }

    // protocol/signed-relay.md §10 line 22
    @Test(arguments: [
        ([("event", "begin")], baseState, "event"),
        ([("event", "start"), ("tokens", ["aa", "bb"])], baseState, "tokens"),
        ([("event", "end")], baseState, "contentState.endedAt"),
        ([], state([("status", "busy")]), "contentState.status"),
        ([], state([("extra", 1)]), "contentState.extra"),
        ([], state([("status", nil)]), "contentState.status"),
        ([], state([("eventVersion", 1.5)]), "contentState.eventVersion"),
        ([], state([("eventVersion", 9_007_199_254_740_992)]), "contentState.eventVersion"),
        ([], state([("updatedAt", "1")]), "contentState.updatedAt"),
        ([], state([("updatedAt", .double(.nan))]), "contentState.updatedAt"),
        ([], state([("endedAt", .double(.infinity))]), "contentState.endedAt"),
        ([], state([("title", .string(String(repeating: "x", count: 81)))]), "contentState.title"),
        ([], state([("workingCount", -1)]), "contentState.workingCount"),
        ([], state([("items", ["a": 1])]), "contentState.items"),
        ([], state([("items", .array(Array(repeating: ["sessionID": "s", "status": "tool", "startedAt": 1], count: 5)))]), "contentState.items"),
        ([], state([("items", [["sessionID": "s", "status": "busy", "startedAt": 1]])]), "contentState.items[0].status"),
        ([], state([("items", [["sessionID": "", "status": "tool", "startedAt": 1]])]), "contentState.items[0].sessionID"),
        ([], state([("items", [["sessionID": .string(String(repeating: "s", count: 129)), "status": "tool", "startedAt": 1]])]), "contentState.items[0].sessionID"),
        ([], state([("items", [["status": "tool", "startedAt": 1]])]), "contentState.items[0].sessionId"),
        ([], state([("items", [["sessionID": "a", "sessionId": "b", "status": "tool", "startedAt": 1]])]), "contentState.items[0].sessionId"),
        ([], state([("items", [["sessionID": "s", "status": "tool"]])]), "contentState.items[0].startedAt"),
        ([], state([("items", [["sessionID": "s", "status": "tool", "startedAt": 1, "title": 5]])]), "contentState.items[0].title"),
        ([], state([("items", [["sessionID": "s", "status": "tool", "startedAt": 1, "endedAt": nil]])]), "contentState.items[0].endedAt"),
        ([("contentState", "x")], baseState, "contentState"),
        ([("tokens", [])], baseState, "tokens"),
        ([("tokens", [1])], baseState, "tokens"),
        ([("dismissalDate", 1.5)], baseState, "dismissalDate"),
    ] as [([(String, JSONValue)], JSONValue, String)])
    func refusesInvalidPushes(members: [(String, JSONValue)], state: JSONValue, field: String) {
        #expect(performing: { try Self.push(members, state: state) }, throws: { ($0 as? WireFieldError)?.field == field })
    }

    /// A start (extension) names one push-to-start token and signs an update's message shape
    /// with `start` as its event; update and end messages are unchanged by it.
    @Test func aStartSignsTheShapeOfAnUpdateWithItsOwnEvent() throws {
        let state = Self.state([("title", "Build"), ("workingCount", 1), ("items", [])])
        let start = try Self.push([("event", "start"), ("staleDate", 1764670800)], state: state)
        let update = try Self.push([("staleDate", 1764670800)], state: state)
        #expect(start.signedMessage(ts: 7) == "7.aa.start.working.1.1764669600.5...1764670800.Build.1.[]")
        #expect(update.signedMessage(ts: 7) == "7.aa.update.working.1.1764669600.5...1764670800.Build.1.[]")
    }

    @Test func acceptsFractionalTimesAndAnEndWithEndedAt() throws {
        let push = try Self.push([("event", "end"), ("dismissalDate", 1764670500)], state: Self.state([("endedAt", 1764669600.25)]))
        #expect(push.contentState.endedAt == 1764669600.25)
        #expect(push.event == .end)
    }

    @Test func normalisesItems() throws {
        let long = String(repeating: "é", count: 79) + "😀"  // 81 UTF-16 code units
        let state = try LiveActivityContentState(json: Self.state([("items", [
            ["status": "input", "startedAt": 1.5, "sessionId": "a", "agent": "dropped"],
            ["title": .string(long), "endedAt": 3, "sessionID": "b", "status": "error", "startedAt": 2],
        ])]))
        let items = try #require(state.items)
        #expect(items[0].title == "")
        #expect(items[1].title == String(repeating: "é", count: 79))
        #expect(state.normalizedItemsJSON == """
            [{"sessionID":"a","title":"","status":"input","startedAt":1.5},\
            {"sessionID":"b","title":"\(String(repeating: "é", count: 79))","status":"error","startedAt":2,"endedAt":3}]
            """)
    }

    @Test func cutsItemTitlesAtEightyCodeUnits() throws {
        let item = try LiveActivityItem(sessionID: "s", title: String(repeating: "x", count: 100), status: .tool, startedAt: 0)
        #expect(item.title.utf16.count == 80)
        let emoji = try LiveActivityItem(sessionID: "s", title: String(repeating: "😀", count: 41), status: .tool, startedAt: 0)
        #expect(emoji.title == String(repeating: "😀", count: 40))
        #expect("ab".prefix(utf16Count: 5) == "ab")
        #expect("a😀b".prefix(utf16Count: 2) == "a")
        #expect("a😀b".prefix(utf16Count: 3) == "a😀")
    }

    @Test func writesTheContentStateForAPNs() throws {
        let item = try LiveActivityItem(sessionID: "s/1", status: .complete, startedAt: 10, endedAt: 20.5)
        let state = try LiveActivityContentState(status: .complete, eventVersion: 3, updatedAt: 30, endedAt: 31,
                                                 title: "Done", workingCount: 0, items: [item])
        #expect(JSONValue.object(state.json).serialized() == """
            {"status":"complete","eventVersion":3,"updatedAt":30,"endedAt":31,"title":"Done","workingCount":0,\
            "items":[{"sessionID":"s/1","title":"","status":"complete","startedAt":10,"endedAt":20.5}]}
            """)
        #expect(try LiveActivityContentState(json: .object(state.json)) == state)
    }

    @Test func describesErrorsWithoutTheValue() {
        let error = WireFieldError(field: "contentState.title", problem: "must be at most 80 characters")
        #expect(error.description == "contentState.title must be at most 80 characters")
    }
}
