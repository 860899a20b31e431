import PushgateCore
@testable import PushgateHost
import Testing

/// The row rules and push content of protocol/host-api.md §6, without I/O.
@Suite struct LiveActivityRowRulesTests {
    private func row(_ id: String, _ status: LiveActivityStatus, title: String = "", endedAt: Double? = nil) throws -> LiveActivityItem {
        try LiveActivityItem(sessionID: id, title: title, status: status, startedAt: 100, endedAt: endedAt)
    }

    private func state(_ status: SessionState.Status, title: String? = nil, visible: Bool = false, firstSeenMs: Int64 = 0) -> SessionState {
        SessionState(status: status, title: title, visible: visible, firstSeenMs: firstSeenMs)
    }

    @Test func statesMoveRowsByTheTable() throws {
        let rows = try [row("busy-perm", .permission), row("busy-input", .input), row("busy-tool", .tool), row("busy-stale", .stale),
                        row("busy-done", .complete, endedAt: 50), row("retry", .working), row("idle", .working),
                        row("idle-done", .complete, endedAt: 50), row("err", .retry), row("unknown", .stale)]
        let states: [String: SessionState] = [
            "busy-perm": state(.busy), "busy-input": state(.busy), "busy-tool": state(.busy), "busy-stale": state(.busy),
            "busy-done": state(.busy), "retry": state(.retry), "idle": state(.idle), "idle-done": state(.idle), "err": state(.error),
        ]
        let next = rows.map { LiveActivityRowRules.refreshed([$0], states: states, candidates: [], nowSeconds: 200)[0] }
        #expect(next.map(\.status) == [.permission, .input, .tool, .working, .working, .retry, .complete, .complete, .error, .stale])
        #expect(next.map(\.endedAt) == [nil, nil, nil, nil, nil, nil, 200, 50, 200, nil], "a working row again drops its old end")
    }

    @Test func candidatesAreVisibleTopLevelWorkingSessionsOldestFirst() {
        var child = state(.busy, visible: true)
        child.parentId = "p"
        var system = state(.busy, visible: true)
        system.system = true
        let states: [String: SessionState] = [
            "b": state(.busy, title: "B", visible: true, firstSeenMs: 2), "a": state(.retry, title: "A", visible: true, firstSeenMs: 2),
            "z": state(.busy, visible: true, firstSeenMs: 1), "hidden": state(.busy), "done": state(.idle, visible: true),
            "child": child, "system": system,
        ]
        let candidates = LiveActivityRowRules.candidates(states, nowSeconds: 300)
        #expect(candidates.map(\.sessionID) == ["z", "a", "b"])
        #expect(candidates.map(\.status) == [.working, .retry, .working])
        #expect(candidates.allSatisfy { $0.startedAt == 300 })
    }

    @Test func capKeepsWorkingRowsThenNewestEndedInATie() throws {
        let rows = try [row("e1", .complete, endedAt: 10), row("w1", .working), row("e2", .error, endedAt: 30),
                        row("e3", .complete, endedAt: 30), row("w2", .input), row("e4", .complete, endedAt: 40)]
        #expect(LiveActivityRowRules.capped(rows).map(\.sessionID) == ["w1", "w2", "e4", "e2"])
        #expect(LiveActivityRowRules.capped(Array(rows.prefix(4))).map(\.sessionID) == ["e1", "w1", "e2", "e3"], "four keep their order")
    }

    @Test func signatureIgnoresStartedAt() throws {
        let a = try LiveActivityItem(sessionID: "s", title: "t", status: .working, startedAt: 1)
        let b = try LiveActivityItem(sessionID: "s", title: "t", status: .working, startedAt: 2)
        #expect(LiveActivityRowRules.sameSignature([a], [b]))
        #expect(!LiveActivityRowRules.sameSignature([a], [a.with(title: "u", status: .working, endedAt: nil)]))
        #expect(!LiveActivityRowRules.sameSignature([a], [a.with(status: .working, endedAt: 5)]))
        #expect(LiveActivityContent(previous: [a], next: [b]) == nil, "nothing to send")
        #expect(LiveActivityContent(previous: [], next: []) == nil)
    }

    @Test func priorityIsUrgentOnlyForEndAndChangesIntoAttentionOrError() throws {
        let working = try row("s1", .working), other = try row("s2", .working)
        let cases: [([LiveActivityItem], [LiveActivityItem], LiveActivityEvent, Int)] = try [
            ([working, other], [working, row("s2", .retry)], .update, 5),
            ([working, other], [working, row("s2", .complete, endedAt: 1)], .update, 5),
            ([working, other], [working, row("s2", .error, endedAt: 1)], .update, 10),
            ([working, other], [working, row("s2", .permission)], .update, 10),
            ([working, other], [working, row("s2", .input)], .update, 10),
            ([working, row("s2", .permission)], [working, row("s2", .permission, title: "new")], .update, 5),
            ([working], [working, row("s3", .input)], .update, 10),
            ([working], [row("s1", .complete, endedAt: 1)], .end, 10),
        ]
        for (previous, next, event, priority) in cases {
            let content = try #require(LiveActivityContent(previous: previous, next: next))
            #expect(content.event == event && content.priority == priority, "\(next.map(\.status))")
        }
    }

    @Test func pushCarriesIntegerDatesAndTheLeadingRow() throws {
        let rows = try [row("s1", .complete, title: "One", endedAt: 1_000), row("s2", .error, title: "Two", endedAt: 1_000)]
        let ended = try #require(LiveActivityContent(previous: [], next: rows, endedSession: "s2"))
        let end = try ended.push(tokens: ["aa"], eventVersion: 7, nowMs: 1_764_669_600_999)
        #expect(end.event == .end && end.contentState.status == .error && end.contentState.title == "Two")
        #expect(end.dismissalDate == 1_764_669_600 + 3_600 && end.staleDate == nil)
        #expect(end.contentState.endedAt == 1_000 && end.contentState.workingCount == 0 && end.contentState.updatedAt == 1_764_669_600.999)
        let byTime = try #require(LiveActivityContent(previous: [], next: rows))
        #expect(try byTime.push(tokens: ["aa"], eventVersion: 7, nowMs: 0).contentState.status == .complete, "a tie: the first row")
        let update = try #require(LiveActivityContent(previous: [], next: [row("s1", .retry, title: "One"), rows[1]]))
        let pushed = try update.push(tokens: ["aa", "bb"], eventVersion: 8, nowMs: 1_764_669_600_999)
        #expect(pushed.staleDate == 1_764_669_600 + 1_200 && pushed.dismissalDate == nil && pushed.contentState.endedAt == nil)
        #expect(pushed.contentState.status == .retry && pushed.contentState.workingCount == 1)
    }
}
