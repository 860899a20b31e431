import Foundation
import PushgateCore
import PushgateHTTP
import Testing
@testable import PushgateTesting
import PushgateTestSupport

/// The fake over real loopback TLS + HTTP/2, driven by the project's HTTP/2 client.
@Suite(.hangLimit(.minutes(1))) struct FakeAPNsLoopbackTests {
    @Test func acceptedPushGets200WithApnsIdAndEmptyBodyAndIsRecorded() async throws {
        let harness = try LoopbackHarness()
        let response = try await harness.send(harness.request())
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        let apnsId = try #require(response.headers.first(named: "apns-id"))
        #expect(APNsRequestValidator.isUUID(apnsId))
        let record = try #require(harness.fake.requests.first)
        #expect(record.path == "/3/device/\(LoopbackHarness.token(1))")
        #expect(record.deviceToken == LoopbackHarness.token(1))
        #expect(record.header("apns-topic") == "com.example.app")
        #expect(record.payload == ["aps": ["alert": ["title": "hi"]]])
        #expect(record.status == 200 && record.reason == nil && record.apnsId == apnsId)

        let echoed = try await harness.send(harness.request { $0.set("apns-id", "123E4567-E89B-12D3-A456-426614174000") })
        #expect(echoed.headers.first(named: "apns-id") == "123E4567-E89B-12D3-A456-426614174000")
    }

    struct WireCase: Sendable, CustomTestStringConvertible {
        let name: String
        let change: @Sendable (inout HTTP2Request, LoopbackHarness) -> Void
        let status: Int
        let reason: String
        var testDescription: String { name }
    }

    static let wireCases: [WireCase] = [
        WireCase(name: "GET", change: { request, _ in request.method = "GET"; request.body = [] }, status: 405, reason: "MethodNotAllowed"),
        WireCase(name: "bad path", change: { request, _ in request.path = "/3/push/aa" }, status: 404, reason: "BadPath"),
        WireCase(name: "odd token", change: { request, _ in request.path = "/3/device/abc" }, status: 400, reason: "BadDeviceToken"),
        WireCase(name: "no JWT", change: { request, _ in request.set("authorization", nil) }, status: 403, reason: "MissingProviderToken"),
        WireCase(name: "garbage JWT", change: { request, _ in request.set("authorization", "bearer a.b.c") }, status: 403, reason: "InvalidProviderToken"),
        WireCase(
            name: "JWT from another key",
            change: { request, harness in
                let token = APNsProviderToken.make(key: P256PrivateKey(), keyId: harness.vector.keyId, teamId: harness.vector.teamId,
                                                   issuedAt: harness.clock.nowMilliseconds / 1000)
                request.set("authorization", "bearer \(token)")
            },
            status: 403, reason: "InvalidProviderToken"),
        WireCase(
            name: "JWT with another team",
            change: { request, harness in
                let token = APNsProviderToken.make(key: harness.key, keyId: harness.vector.keyId, teamId: "OTHERTEAM1",
                                                   issuedAt: harness.clock.nowMilliseconds / 1000)
                request.set("authorization", "bearer \(token)")
            },
            status: 403, reason: "InvalidProviderToken"),
        WireCase(
            name: "JWT an hour old",
            change: { request, harness in
                let token = APNsProviderToken.make(key: harness.key, keyId: harness.vector.keyId, teamId: harness.vector.teamId,
                                                   issuedAt: harness.clock.nowMilliseconds / 1000 - 3600)
                request.set("authorization", "bearer \(token)")
            },
            status: 403, reason: "ExpiredProviderToken"),
        WireCase(name: "no topic", change: { request, _ in request.set("apns-topic", nil) }, status: 400, reason: "MissingTopic"),
        WireCase(name: "bad push type", change: { request, _ in request.set("apns-push-type", "email") }, status: 400, reason: "InvalidPushType"),
        WireCase(name: "bad priority", change: { request, _ in request.set("apns-priority", "3") }, status: 400, reason: "BadPriority"),
        WireCase(
            name: "long collapse id", change: { request, _ in request.set("apns-collapse-id", String(repeating: "x", count: 65)) },
            status: 400, reason: "BadCollapseId"),
        WireCase(name: "empty payload", change: { request, _ in request.body = [] }, status: 400, reason: "PayloadEmpty"),
        WireCase(
            name: "payload over 4 KiB",
            change: { request, _ in request.body = Array(#"{"aps":{},"p":""#.utf8) + [UInt8](repeating: 0x78, count: 4096) + Array(#""}"#.utf8) },
            status: 413, reason: "PayloadTooLarge"),
    ]

    @Test(arguments: wireCases) func rejectionsCarryApplesStatusAndReason(_ wireCase: WireCase) async throws {
        let harness = try LoopbackHarness()
        var request = harness.request()
        wireCase.change(&request, harness)
        let response = try await harness.send(request)
        #expect(response.status == wireCase.status)
        #expect(response.reason == wireCase.reason)
        #expect(response.headers.first(named: "content-type") == "application/json")
        #expect(response.headers.first(named: "apns-id") != nil)
        #expect(harness.fake.requests.first?.reason?.rawValue == wireCase.reason)
    }

    @Test func sameProviderTokenExpiresWhenTheClockPassesAnHour() async throws {
        let harness = try LoopbackHarness()
        let request = harness.request()
        #expect(try await harness.send(request).status == 200)
        harness.clock.advance(milliseconds: 3_600_000)
        let expired = try await harness.send(request)
        #expect(expired.status == 403 && expired.reason == "ExpiredProviderToken")
        #expect(try await harness.send(harness.request()).status == 200)
    }

    @Test func scriptedUnregisteredAnswers410WithTimestamp() async throws {
        let harness = try LoopbackHarness()
        harness.fake.script(token: LoopbackHarness.token(7), .unregistered)
        let response = try await harness.send(harness.request(token: LoopbackHarness.token(7)))
        #expect(response.status == 410)
        #expect(try JSONValue.parse(response.body) == ["reason": "Unregistered", "timestamp": .integer(harness.clock.nowMilliseconds)])
        harness.fake.script(token: LoopbackHarness.token(7), nil)
        #expect(try await harness.send(harness.request(token: LoopbackHarness.token(7))).status == 200)
        harness.fake.script(token: LoopbackHarness.token(8), ScriptedResponse(status: 429, reason: .tooManyRequests))
        let throttled = try await harness.send(harness.request(token: LoopbackHarness.token(8)))
        #expect(throttled.status == 429 && throttled.reason == "TooManyRequests")
    }

    @Test func scriptsApplyOnlyToValidRequests() async throws {
        let harness = try LoopbackHarness()
        harness.fake.script(token: LoopbackHarness.token(7), .unregistered)
        let response = try await harness.send(harness.request(token: LoopbackHarness.token(7)) { $0.set("apns-topic", nil) })
        #expect(response.status == 400 && response.reason == "MissingTopic")
    }

    @Test func delayedStreamDoesNotHoldUpOthers() async throws {
        let harness = try LoopbackHarness()
        harness.fake.script(token: LoopbackHarness.token(1), .success(afterMilliseconds: 300))
        let completionOrder = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in [1, 2] {
                group.addTask {
                    let response = try await harness.send(harness.request(token: LoopbackHarness.token(index)))
                    #expect(response.status == 200)
                    return index
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(completionOrder == [2, 1])
        #expect(harness.fake.counters.connectionsAccepted == 1)
    }

    @Test func announcesMaxConcurrentStreamsAndCountsThePeak() async throws {
        let harness = try LoopbackHarness { $0.maxConcurrentStreams = 4 }
        for index in 0..<12 { harness.fake.script(token: LoopbackHarness.token(index), .success(afterMilliseconds: 50)) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 { group.addTask { try await harness.send(harness.request(token: LoopbackHarness.token(index))).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 12))
        #expect(harness.fake.counters.maxConcurrentStreamsSeen == 4)
    }

    /// Four at once against GOAWAY-after-2: the first connection serves two and refuses the
    /// others, which the client retries (once) on a second connection that serves them.
    @Test func goAwayAfterNStreamsServesThoseAndRefusesTheRest() async throws {
        let harness = try LoopbackHarness()
        harness.fake.goAway(afterStreams: 2)
        for index in 0..<4 { harness.fake.script(token: LoopbackHarness.token(index), .success(afterMilliseconds: 20)) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<4 { group.addTask { try await harness.send(harness.request(token: LoopbackHarness.token(index))).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 4))
        let counters = harness.fake.counters
        #expect(counters.requests == 4, "refused streams must not be processed")
        #expect(Set(harness.fake.requests.compactMap(\.deviceToken)).count == 4)
        #expect(counters.connectionsAccepted == 2)
        #expect(counters.goAwaysSent == 2)
    }

    @Test func dropNowLosesStreamsInFlight() async throws {
        let harness = try LoopbackHarness()
        harness.fake.script(token: LoopbackHarness.token(1), .success(afterMilliseconds: 10_000))
        async let lost = Result { try await harness.send(harness.request(token: LoopbackHarness.token(1))) }
        await harness.waitForFake(requests: 1)
        harness.fake.dropConnectionsNow()
        let error = try #require(await lost.failure as? HTTP2ClientError)
        #expect(error.kind == .connectionLost)
        #expect(harness.fake.counters.connectionsDropped == 1)
    }

    @Test func dropAfterNStreamsAnswersTheEarlierOnes() async throws {
        let harness = try LoopbackHarness()
        harness.fake.dropConnections(afterStreams: 2)
        #expect(try await harness.send(harness.request(token: LoopbackHarness.token(1))).status == 200)
        let second = await Result { try await harness.send(harness.request(token: LoopbackHarness.token(2))) }
        #expect((second.failure as? HTTP2ClientError)?.kind == .connectionLost)
        #expect(try await harness.send(harness.request(token: LoopbackHarness.token(3))).status == 200)
        #expect(harness.fake.requests.compactMap(\.deviceToken) == [LoopbackHarness.token(1), LoopbackHarness.token(3)])
        #expect(harness.fake.counters.connectionsDropped == 1)
        #expect(harness.fake.counters.connectionsAccepted == 2)
    }

    @Test func countersOnlyModeKeepsNoRecords() async throws {
        let harness = try LoopbackHarness { $0.recording = .countersOnly }
        #expect(try await harness.send(harness.request()).status == 200)
        #expect(try await harness.send(harness.request { $0.body = [] }).status == 400)
        #expect(harness.fake.requests.isEmpty)
        #expect(harness.fake.counters.byStatus == [200: 1, 400: 1])
    }

    @Test func stopClosesTheListener() async throws {
        let harness = try LoopbackHarness()
        #expect(try await harness.send(harness.request()).status == 200)
        harness.fake.stop()
        harness.fake.stop()
        let after = await Result { try await harness.send(harness.request { $0.timeoutMilliseconds = 2_000 }) }
        #expect(after.failure != nil)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }

    var failure: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
