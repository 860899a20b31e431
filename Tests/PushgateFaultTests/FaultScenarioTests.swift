import Foundation
import PushgateCore
import PushgateTesting
import Testing
import PushgateTestSupport
import Synchronization

/// host → relay → fake APNs, the real binaries, under one provider, relay, database or host
/// fault each (docs/performance.md, "faults"). One row per scenario; every scenario must lose
/// nothing of what the host answered 2xx.
@Suite(.serialized, .hangLimit(FaultSizes.current.timeLimit)) struct FaultScenarioTests {
    @Test func baseline() async throws {
        try await FaultScenario(name: "baseline").run()
    }

    @Test func serviceUnavailableTwicePerToken() async throws {
        try await FaultScenario(name: "503 twice per token", script: FakeScripts.serviceUnavailableTwice).run()
    }

    @Test func goAwayEvery50Streams() async throws {
        try await FaultScenario(name: "GOAWAY every 50 streams", fakeFlags: ["--goaway-after-streams", "50"]).run()
    }

    @Test func resetEvery7thStream() async throws {
        try await FaultScenario(name: "RST_STREAM every 7th stream", fakeFlags: ["--reset-stream-every", "7"]).run()
    }

    @Test func connectionsDroppedMidBurst() async throws {
        try await FaultScenario(name: "connections dropped mid-burst (SIGUSR1)", fault: { chain in
            BurstFault(begin: { await chain.signalFake(SIGUSR1) })
        }).run()
    }

    /// More streams than a burst keeps open at once (`window × devices`): a connection dropped
    /// before it can answer anything would only measure time-outs.
    @Test func connectionDroppedAtEvery100thStream() async throws {
        try await FaultScenario(name: "connection dropped at its 100th stream", fakeFlags: ["--drop-after-streams", "100"]).run()
    }

    @Test func fakeStoppedFor6Seconds() async throws {
        try await FaultScenario(name: "fake APNs stopped 6 s (SIGSTOP)", fault: { chain in
            BurstFault(begin: { await chain.signalFake(SIGSTOP) }, hold: .seconds(6), end: { await chain.signalFake(SIGCONT) })
        }).run()
    }

    @Test func fakeDownFor5Seconds() async throws {
        try await FaultScenario(name: "fake APNs down 5 s (killed, restarted)", fault: { chain in
            BurstFault(begin: { try await chain.killFake() }, hold: .seconds(5), end: { try await chain.startFakeAgain() })
        }).run()
    }

    @Test func tooManyRequestsWithRetryAfter() async throws {
        try await FaultScenario(name: "429 with Retry-After: 2, once per token", script: FakeScripts.tooManyRequestsOnce(retryAfter: 2)).run()
    }

    @Test func relayKilledAndRestarted() async throws {
        try await FaultScenario(name: "relay kill -9, restarted", fault: { chain in
            BurstFault(begin: { try await chain.restartRelay() })
        }).run()
    }

    /// Killed while its outbox holds pushes (a third of the devices answered their first push
    /// 429 with a Retry-After longer than a burst's first third) and while the hub waits for an
    /// answer: the host is frozen, and killed once a post went out to it. The restarted host
    /// sends what its outbox holds, and the hub posts again what the killed host left unanswered.
    @Test func hostKilledAndRestarted() async throws {
        try await FaultScenario(name: "host kill -9 with pushes in its outbox, restarted",
                                script: FakeScripts.tooManyRequestsOnce(retryAfter: 5, everyNth: 3), expectsReposts: true, fault: { chain in
            let postsBeforeFreezing = Mutex(0)
            return BurstFault(begin: {
                let outbox = try await chain.client.status()["outbox"]
                #expect((outbox?["depth"]?.int64Value ?? 0) > 0, "nothing in the outbox when the host was killed: \(outbox?.serialized() ?? "none")")
                postsBeforeFreezing.withLock { $0 = chain.postsSent.count }
                await chain.freezeHost()
            }, end: {
                await chain.postsSent.wait(beyond: postsBeforeFreezing.withLock { $0 })
                try await chain.restartHost()
            })
        }).run()
    }

    /// The relay answers 503 `dependency_unavailable` while its database is down; the host's
    /// outbox sends those pushes again, and must have queued some, or the fault missed the burst.
    @Test func postgreSQLRestartedUnderTheRelay() async throws {
        guard let server = try await PostgreSQLTestServer.startPrivate() else {
            try Test.cancel("PostgreSQL server binaries not installed (Scripts/bootstrap installs them)")
        }
        do {
            try await FaultScenario(name: "PostgreSQL restarted under the relay (down 3 s)",
                                    relayDatabaseURL: try await server.createDatabase(), expectsQueued: true, fault: { _ in
                BurstFault(begin: { try await server.shutDown() }, hold: .seconds(3), end: { try await server.startAgain() })
            }).run()
        } catch {
            do { try await server.stop() } catch { print("faults: stopping the PostgreSQL server after the failure: \(error)") }
            throw error
        }
        try await server.stop()
    }

    /// The outbox cannot be written while the disk is full, and with the fake down every push
    /// fails: the host answers 503 `store_unavailable`, and the hub posts the event again until
    /// a 2xx.
    @Test func hostDiskFull() async throws {
        try await FaultScenario(name: "host.sqlite's disk full and the fake APNs down 3 s", smallHostDisk: true,
                                expectsReposts: true, fault: { chain in
            BurstFault(begin: {
                try await chain.fillHostDisk()
                try await chain.killFake()
            }, hold: .seconds(3), end: {
                try await chain.startFakeAgain()
                try await chain.freeHostDisk()
            })
        }).run()
    }
}
