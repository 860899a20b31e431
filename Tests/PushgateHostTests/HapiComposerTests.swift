import PushgateCore
@testable import PushgateHost
import Testing

/// protocol/hapi-push.md §9: titles, bodies and fields of every payload type (§11 line 40, content part).
@Suite struct HapiComposerTests {
    static func event(_ type: EventType, name: String? = "Demo", agent: String? = "Claude", text: String? = nil,
                      requests: [PendingRequest]? = nil, task: TaskReport? = nil) -> HostEvent {
        HostEvent(type: type, sessionId: "s1", sessionName: name, agent: agent, agentText: text, pendingRequests: requests, task: task)
    }

    @Test func readyWithoutAgentText() throws {
        let payload = try #require(HapiComposer.payload(for: Self.event(.ready, text: "  \n ")))
        #expect(payload == HapiPayload(type: .ready, sessionId: "s1", sessionName: "Demo", url: "/sessions/s1",
                                       title: "Ready for input", body: "Claude is waiting in Demo", severity: .info))
        let unnamed = try #require(HapiComposer.payload(for: HostEvent(type: .ready, sessionId: "0123456789abc")))
        #expect(unnamed.body == "Agent is waiting in 01234567" && unnamed.sessionName == "01234567")
    }

    @Test func readyWithAGluedSummaryFooter() throws {
        let text = "Line one\nDone.AGENT_NOTIFY_SUMMARY {\"version\":1,\"summary\":\"S\",\"action\":\"A\"}\n  \n"
        let payload = try #require(HapiComposer.payload(for: Self.event(.ready, text: text)))
        #expect(payload.title == "Claude - Demo")
        #expect(payload.body == "S\n-> A")
        #expect(payload.notifySummary == #"{"version":1,"summary":"S","action":"A"}"#)
        #expect(payload.severity == .info)
    }

    @Test func footerMembersKeepTheirOrderAndAreClipped() throws {
        let footer = #"  AGENT_NOTIFY_SUMMARY {"project":"p","agent":"a","status":"ok","action":"next","summary":"完成","version":1.5,"x":1}"#
        let payload = try #require(HapiComposer.payload(for: Self.event(.ready, text: footer)))
        #expect(payload.notifySummary == #"{"version":1.5,"summary":"完成","action":"next","status":"ok","agent":"a","project":"p"}"#)
        let same = try #require(HapiComposer.payload(for: Self.event(.ready, text: #"AGENT_NOTIFY_SUMMARY {"summary":"x","action":"x"}"#)))
        #expect(same.body == "x", "an action equal to the summary adds no line")
        let long = String(repeating: "s", count: 300)
        let clipped = try #require(HapiComposer.payload(for: Self.event(.ready, text: "AGENT_NOTIFY_SUMMARY {\"summary\":\"\(long)\",\"action\":\"go\"}")))
        #expect(clipped.body == String(repeating: "s", count: 277) + "...", "no room is left for the action line")
    }

    @Test func footerMentionedInProseIsNotAFooter() throws {
        let prose = #"Example: AGENT_NOTIFY_SUMMARY {"summary":"S"}"#
        let payload = try #require(HapiComposer.payload(for: Self.event(.ready, text: prose)))
        #expect(payload.body == prose && payload.notifySummary == nil)
        let notLast = "AGENT_NOTIFY_SUMMARY {\"summary\":\"S\"}\nthen more text"
        #expect(try #require(HapiComposer.payload(for: Self.event(.ready, text: notLast))).body == notLast)
        let second = #"AGENT_NOTIFY_SUMMARY nope AGENT_NOTIFY_SUMMARY {"summary":"S2"}"#
        #expect(try #require(HapiComposer.payload(for: Self.event(.ready, text: second))).body == second,
                "the second marker follows white space after text: prose")
        let brokenThenGood = #"x.AGENT_NOTIFY_SUMMARY {oops}.AGENT_NOTIFY_SUMMARY {"summary":"S3"}"#
        #expect(try #require(HapiComposer.payload(for: Self.event(.ready, text: brokenThenGood))).body == "S3")
        let emptySummary = #"AGENT_NOTIFY_SUMMARY {"summary":"","action":"A"}"#
        #expect(try #require(HapiComposer.payload(for: Self.event(.ready, text: emptySummary))).body == emptySummary)
    }

    @Test func readyTextWithoutFooterIsClipped() throws {
        let text = "  " + String(repeating: "é", count: 290) + "  "
        let payload = try #require(HapiComposer.payload(for: Self.event(.ready, text: text)))
        #expect(payload.body == String(repeating: "é", count: 277) + "...")
        #expect(payload.title == "Claude - Demo")
    }

    @Test func permissionBodies() throws {
        func body(_ tool: String?, _ arguments: JSONValue?, name: String? = "Demo") throws -> String {
            let request = PendingRequest(id: "r1", tool: tool, arguments: arguments)
            let payload = try #require(HapiComposer.payload(for: Self.event(.permission, name: name, requests: [request])))
            #expect(payload.type == .permissionRequest && payload.title == "Permission Request")
            #expect(payload.severity == .warning && payload.requestId == "r1")
            return payload.body
        }
        #expect(try body("Bash", ["command": "ls -la"]) == "Claude Bash: ls -la\nSession: Demo\nCommand: ls -la")
        #expect(try body("Edit", ["file_path": "/a/b/c.ts", "old_string": "x", "new_string": ""])
            == "Claude Edit: .../b/c.ts\nSession: Demo\nFile: /a/b/c.ts\nOld: \"x\"")
        #expect(try body("Write", ["path": "c.ts", "content": "😀"]) == "Claude Write: c.ts\nSession: Demo\nFile: c.ts (2 chars)")
        #expect(try body("Read", [:]) == "Claude Read\nSession: Demo\nFile: unknown")
        #expect(try body("Task", ["description": "", "prompt": "Find it"]) == "Claude Task: Find it\nSession: Demo\nTask: Find it")
        #expect(try body("Grep", ["pattern": "TODO", "path": "src"]) == "Claude Grep: TODO\nSession: Demo\nPattern: TODO\nPath: src")
        #expect(try body("WebFetch", ["url": "https://Example.com/x?y"]) == "Claude WebFetch: example.com\nSession: Demo\nURL: https://Example.com/x?y")
        #expect(try body("WebFetch", ["url": "not a url"]) == "Claude WebFetch: not a url\nSession: Demo\nURL: not a url")
        #expect(try body("TodoWrite", ["todos": [1, 2, 3]]) == "Claude TodoWrite: 3 items\nSession: Demo\nUpdating 3 todo items")
        #expect(try body("mcp__x", ["query": "weather"]) == "Claude mcp__x\nSession: Demo\nArgs: {\"query\":\"weather\"}")
        #expect(try body("mcp__x", ["a": 1]) == "Claude mcp__x\nSession: Demo", "short JSON is left out")
        #expect(try body("Bash", "not an object") == "Claude Bash\nSession: Demo")
        #expect(try body(nil, nil) == "Claude - Demo\nSession: Demo", "no tool: the glance line names the session")
        #expect(try body(nil, nil, name: nil) == "Claude - s1\nSession: s1")
        let long = String(repeating: "x", count: 200)
        #expect(try body("Bash", .object(JSONObject([("command", .string(long))])))
            == "Claude Bash: \(String(repeating: "x", count: 57))...\nSession: Demo\nCommand: \(String(repeating: "x", count: 117))...")
    }

    @Test func inputRequestVariant() throws {
        let questions: JSONValue = ["questions": [["question": "  Which\n branch? "], ["header": "Scope"], ["question": ""], "x"]]
        for tool in ["AskUserQuestion", "functions.request_user_input", "ask_user_question", "CursorAskQuestion"] {
            let request = PendingRequest(id: "q1", tool: tool, arguments: questions)
            let payload = try #require(HapiComposer.payload(for: Self.event(.permission, name: " My\n session ", requests: [request])))
            #expect(payload.type == .inputRequest && payload.title == "Claude needs your input")
            #expect(payload.severity == .info && payload.requestId == "q1")
            #expect(payload.sessionName == "My session")
            #expect(payload.body == "Which branch?\n+1 more question\nMy session")
        }
        let prefixed = PendingRequest(id: "q2", tool: "functions.functions.AskUserQuestion", arguments: questions)
        #expect(HapiComposer.payload(for: Self.event(.permission, requests: [prefixed]))?.type == .permissionRequest)
        let none = PendingRequest(id: "q3", tool: "AskUserQuestion", arguments: ["questions": []])
        #expect(HapiComposer.payload(for: Self.event(.question, name: "", requests: [none]))?.body
            == "Open the session to view and answer the question.\ns1")
        let many = PendingRequest(id: "q4", tool: "AskUserQuestion",
                                  arguments: .object(JSONObject([("questions", .array((0..<4).map { _ in ["question": .string(String(repeating: "q", count: 400))] }))])))
        let body = try #require(HapiComposer.payload(for: Self.event(.question, requests: [many]))?.body)
        #expect(body == String(repeating: "q", count: 256) + "\u{2026}\n+3 more questions\nDemo")
        #expect(body.unicodeScalars.count == 280)
    }

    @Test func firstPendingRequestWinsAndNoneSendsNothing() throws {
        let requests = [PendingRequest(id: "r1", tool: "Bash", arguments: ["command": "a"]), PendingRequest(id: "r2", tool: "Read")]
        #expect(HapiComposer.payload(for: Self.event(.permission, requests: requests))?.requestId == "r1")
        #expect(HapiComposer.payload(for: Self.event(.permission, requests: [])) == nil)
        #expect(HapiComposer.payload(for: Self.event(.permission)) == nil, "no list and no requestId: nothing pending")
        var withId = Self.event(.permission)
        withId.requestId = "r9"
        #expect(HapiComposer.payload(for: withId)?.body == "Claude - Demo\nSession: Demo")
        #expect(HapiComposer.payload(for: Self.event(.error)) == nil)
        #expect(HapiComposer.payload(for: Self.event(.update)) == nil)
    }

    @Test func taskNotifications() throws {
        let killed = try #require(HapiComposer.payload(for: Self.event(.taskComplete, task: TaskReport(summary: " Built ", status: " Killed "))))
        #expect(killed.title == "Task failed" && killed.severity == .error)
        #expect(killed.body == "Claude \u{00B7} Demo \u{00B7} Built")
        #expect(killed.requestId == nil && killed.type == .taskNotification)
        let done = try #require(HapiComposer.payload(for: Self.event(.taskComplete, task: TaskReport(summary: "ok", status: "completed"))))
        #expect(done.title == "Task completed" && done.severity == .success)
        #expect(HapiComposer.payload(for: Self.event(.taskError, task: TaskReport(summary: "boom")))?.title == "Task failed")
        #expect(HapiComposer.payload(for: Self.event(.taskComplete, task: TaskReport(summary: "  "))) == nil)
        #expect(HapiComposer.payload(for: Self.event(.taskComplete)) == nil)
    }

    @Test func eventInputFieldsAreReadStrictly() throws {
        let json = try JSONValue.parse(#"""
            {"type":"permission","sessionId":"s1","agent":"Codex","agentText":null,
             "pendingRequests":[{"id":"r1","tool":"Bash","arguments":{"command":"ls"}},{"id":"r2","tool":null}],
             "task":{"summary":"x","status":null}}
            """#)
        let event = try HostEvent(json: json)
        #expect(event.agent == "Codex" && event.agentText == nil)
        #expect(event.pendingRequests == [PendingRequest(id: "r1", tool: "Bash", arguments: ["command": "ls"]), PendingRequest(id: "r2")])
        #expect(event.task == TaskReport(summary: "x"))
        for (body, field) in [(#"{"type":"permission","sessionId":"s","pendingRequests":[{"tool":"x"}]}"#, "pendingRequests[0].id"),
                              (#"{"type":"permission","sessionId":"s","pendingRequests":{}}"#, "pendingRequests"),
                              (#"{"type":"task_complete","sessionId":"s","task":{"status":"ok"}}"#, "task.summary"),
                              (#"{"type":"ready","sessionId":"s","agent":3}"#, "agent")] {
            #expect(performing: { try HostEvent(json: try JSONValue.parse(body)) }, throws: { ($0 as? WireFieldError)?.field == field })
        }
    }
}
