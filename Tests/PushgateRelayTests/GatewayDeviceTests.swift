import Foundation
import Testing
import PushgateCore
import PushgateTesting
import PushgateTestSupport

/// protocol/gateway.md §12 lines 15–18: registering, listing and deleting phones.
@Suite(.hangLimit(.minutes(1))) struct GatewayDeviceTests {
    // §12 line 15
    @Test func registrationSchemaIsStrict() async throws {
        let harness = try await GatewayHarness()
        let session = try await harness.handshake(try harness.newHost())
        let iosToken = Hex.encode(SecureRandom.bytes(32))
        let fcmToken = "fcm:" + String(repeating: "A", count: 60)
        func body(_ edit: (inout JSONObject) -> Void, from base: JSONValue = GatewayHarness.device("phone-1", token: iosToken)) -> JSONValue {
            var object = base.objectValue!
            edit(&object)
            return .object(object)
        }
        let android = GatewayHarness.device("phone-2", token: fcmToken, environment: nil, platform: "android")
        let refused: [(String, JSONValue)] = [
            ("iOS without apnsEnvironment", body { $0["apnsEnvironment"] = nil }),
            ("iOS token of 63 hex", body { $0["token"] = .string(String(iosToken.dropLast())) }),
            ("iOS token with a non-hex char", body { $0["token"] = .string(String(iosToken.dropLast()) + "g") }),
            ("Android with apnsEnvironment", body({ $0["apnsEnvironment"] = "production" }, from: android)),
            ("Android token of 31 chars", body({ $0["token"] = .string(String(repeating: "a", count: 31)) }, from: android)),
            ("Android token with a space", body({ $0["token"] = .string(String(repeating: "a", count: 40) + " x") }, from: android)),
            ("duplicate filter entry", body { $0["filter"] = ["sources": ["plugin", "plugin"], "agentStates": []] }),
            ("extra filter key", body { $0["filter"] = ["sources": [], "agentStates": [], "kinds": []] }),
            ("adhoc environment", body { $0["apnsEnvironment"] = "adhoc" }),
            ("unknown source", body { $0["filter"] = ["sources": ["email"], "agentStates": []] }),
            ("filter without agentStates", body { $0["filter"] = ["sources": []] }),
            ("no filter", body { $0["filter"] = nil }),
            ("unknown member", body { $0["name"] = "Pixel" }),
            ("v 2", body { $0["v"] = 2 }),
            ("platform web", body { $0["platform"] = "web" }),
            ("empty deviceId", body { $0["deviceId"] = "" }),
            ("deviceId of 129 chars", body { $0["deviceId"] = .string(String(repeating: "d", count: 129)) }),
            ("null apnsEnvironment", body { $0["apnsEnvironment"] = .null }),
        ]
        for (name, json) in refused {
            let reply = try await harness.call("POST", "/v1/devices", json: json, session: session)
            #expect(reply.status == 400 && reply.text == #"{"error":"invalid_request"}"#, "\(name)")
        }
        #expect(try harness.count("SELECT count(*) FROM push_devices") == 0)
        #expect(harness.gateway.counter("device_rejected") == refused.count)
        // The accepted forms: upper-case hex, an empty filter, Android without an environment, 128-char id.
        let accepted: [JSONValue] = [
            body { $0["token"] = .string(iosToken.uppercased()) },
            body { $0["filter"] = ["sources": [], "agentStates": []]; $0["deviceId"] = "phone-3" },
            android,
            body { $0["deviceId"] = .string(String(repeating: "é", count: 128)) },
        ]
        for json in accepted {
            let reply = try await harness.call("POST", "/v1/devices", json: json, session: session)
            #expect(reply.status == 200 && reply.json?.objectValue?.keys == ["registrationId"], "\(reply.text)")
        }
        let stored = try harness.rows("SELECT platform, apns_environment, filter_json FROM push_devices WHERE device_id = 'phone-2'", columns: 3)
        #expect(stored == [["android", nil, #"{"sources":["agent-task-complete","terminal-bell"],"agentStates":["needs-input"]}"#]])
        await harness.stop()
    }

    // §12 line 16
    @Test func reRegisteringKeepsTheIdReplacesTheTokenAndRevives() async throws {
        let harness = try await GatewayHarness(settings: ["COALESCE_MS": "0"])
        let session = try await harness.handshake(try harness.newHost())
        let oldToken = Hex.encode(SecureRandom.bytes(32))
        let id = try await harness.register(GatewayHarness.device("phone", token: oldToken), session: session)
        harness.fake.script(token: oldToken, ScriptedResponse(status: 410, reason: .unregistered))
        #expect(try await harness.send(GatewayHarness.send([id]), session: session) == ["\(id):queued"])
        await harness.advance(byMs: 0)
        #expect(try harness.rows("SELECT dead_at IS NOT NULL FROM push_devices") == [["1"]])
        let newToken = Hex.encode(SecureRandom.bytes(32))
        #expect(try await harness.register(GatewayHarness.device("phone", token: newToken, environment: "production"), session: session) == id)
        let row = try harness.rows("SELECT registration_id, token, apns_environment, dead_at FROM push_devices", columns: 4)
        #expect(row == [[id, newToken, "production", nil]])
        let list = try await harness.call("GET", "/v1/devices", session: session)
        #expect(list.json?["devices"]?.arrayValue?.first?["dead"] == false)
        await harness.stop()
    }

    // §12 line 17
    @Test func sixtyFourDevicesPerHostEvenUnderConcurrency() async throws {
        let harness = try await GatewayHarness(relaySettings: ["MAX_CONNECTIONS_PER_IP": "4096"])
        let session = try await harness.handshake(try harness.newHost())
        var ids: [String] = []
        for index in 0..<64 { ids.append(try await harness.register(GatewayHarness.device("phone-\(index)"), session: session)) }
        let refused = try await harness.call("POST", "/v1/devices", json: GatewayHarness.device("phone-64"), session: session)
        #expect(refused.status == 409 && refused.text == #"{"error":"too_many_devices"}"#)
        #expect(try await harness.register(GatewayHarness.device("phone-7"), session: session) == ids[7], "an existing one re-registers at 64")
        #expect(try await harness.call("DELETE", "/v1/devices/\(ids[0])", session: session).status == 204)
        _ = try await harness.register(GatewayHarness.device("phone-64"), session: session)
        #expect(try harness.count("SELECT count(*) FROM push_devices") == 64)

        // A fresh host: 80 new ids at once leave exactly 64 rows.
        let other = try await harness.handshake(try harness.newHost())
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<80 {
                group.addTask { try await harness.call("POST", "/v1/devices", json: GatewayHarness.device("new-\(index)"), session: other).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 64)
        #expect(statuses.filter { $0 == 409 }.count == 16)
        #expect(try harness.count("SELECT count(*) FROM push_devices WHERE device_id LIKE 'new-%'") == 64)
        await harness.stop()
    }

    // §12 line 18
    @Test func deleteAndListBelongToTheOwner() async throws {
        let harness = try await GatewayHarness()
        let owner = try await harness.handshake(try harness.newHost())
        let stranger = try await harness.handshake(try harness.newHost())
        let first = try await harness.register(GatewayHarness.device("a"), session: owner)
        await harness.advance(byMs: 5)
        let second = try await harness.register(GatewayHarness.device("b", token: "ab" + String(repeating: "0", count: 62)), session: owner)
        let third = try await harness.register(
            GatewayHarness.device("c", token: "fcm-" + String(repeating: "x", count: 40), environment: nil, platform: "android"), session: owner)

        let list = try await harness.call("GET", "/v1/devices", session: owner)
        #expect(list.status == 200)
        let expected: JSONValue = ["devices": [
            ["registrationId": .string(first), "deviceId": "a", "platform": "ios", "dead": false],
            ["registrationId": .string(second), "deviceId": "b", "platform": "ios", "dead": false],
            ["registrationId": .string(third), "deviceId": "c", "platform": "android", "dead": false],
        ]]
        #expect(list.json == expected)
        #expect(try await harness.call("GET", "/v1/devices", session: stranger).json == ["devices": []])

        for (session, id) in [(stranger, first), (owner, RandomUUID.lowercase())] {
            let missing = try await harness.call("DELETE", "/v1/devices/\(id)", session: session)
            #expect(missing.status == 404 && missing.text == #"{"error":"not_found"}"#)
        }
        #expect(try harness.count("SELECT count(*) FROM push_devices") == 3, "the owner's row is untouched")
        let deleted = try await harness.call("DELETE", "/v1/devices/\(first)", session: owner)
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        #expect(try await harness.call("DELETE", "/v1/devices/\(first)", session: owner).status == 404)
        #expect(try await harness.call("GET", "/v1/devices", session: owner).json?["devices"]?.arrayValue?.count == 2)
        #expect(harness.gateway.counter("device_deleted") == 1)
        await harness.stop()
    }
}
