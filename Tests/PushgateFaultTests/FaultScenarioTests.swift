import Foundation
import PushgateCore
import Testing

/// host → relay → fake APNs, the real binaries, under one provider or relay fault each
/// (docs/performance.md, "faults"). One row per scenario; losses are reported, not asserted.
@Suite(.serialized, .timeLimit(FaultSizes.current.timeLimit)) struct FaultScenarioTests {
    @Test func baseline() async throws {
        try await FaultScenario(name: "baseline").run()
    }

    @Test func serviceUnavailableTwicePerToken() async throws {
        let twice503: JSONValue = [["status": 503], ["status": 503], ["status": 200]]
        try await FaultScenario(name: "503 twice per token", script: { tokens in
            .object(JSONObject(tokens.map { ($0, twice503) }))
        }).run()
    }

    @Test func goAwayEvery50Streams() async throws {
        try await FaultScenario(name: "GOAWAY every 50 streams", fakeFlags: ["--goaway-after-streams", "50"]).run()
    }

    @Test func resetEvery7thStream() async throws {
        try await FaultScenario(name: "RST_STREAM every 7th stream", fakeFlags: ["--reset-stream-every", "7"]).run()
    }

    @Test func connectionsDroppedMidBurst() async throws {
        try await FaultScenario(name: "connections dropped mid-burst (SIGUSR1)", fault: { chain in
            await chain.signalFake(SIGUSR1)
        }).run()
    }

    /// More streams than a burst keeps open at once (`window × devices`): a connection dropped
    /// before it can answer anything would only measure time-outs.
    @Test func connectionDroppedAtEvery100thStream() async throws {
        try await FaultScenario(name: "connection dropped at its 100th stream", fakeFlags: ["--drop-after-streams", "100"]).run()
    }

    @Test func fakeStoppedFor6Seconds() async throws {
        try await FaultScenario(name: "fake APNs stopped 6 s (SIGSTOP)", fault: { chain in
            await chain.signalFake(SIGSTOP)
            try await Task.sleep(for: .seconds(6))
            await chain.signalFake(SIGCONT)
        }).run()
    }

    @Test func fakeDownFor5Seconds() async throws {
        try await FaultScenario(name: "fake APNs down 5 s (killed, restarted)", fault: { chain in
            try await chain.takeFakeDown(forSeconds: 5)
        }).run()
    }

    @Test func tooManyRequestsWithRetryAfter() async throws {
        let once429: JSONValue = [["status": 429, "retryAfter": 2], ["status": 200]]
        try await FaultScenario(name: "429 with Retry-After: 2, once per token", script: { tokens in
            .object(JSONObject(tokens.map { ($0, once429) }))
        }).run()
    }

    @Test func relayKilledAndRestarted() async throws {
        try await FaultScenario(name: "relay kill -9, restarted", fault: { chain in
            try await chain.restartRelay()
        }).run()
    }
}
