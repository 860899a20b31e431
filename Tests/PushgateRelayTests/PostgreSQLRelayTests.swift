import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateTesting
import PushgateTestSupport

/// The relay on PostgreSQL (`DATABASE_URL`, protocol/signed-relay.md §8): durability across `kill -9`,
/// two relay instances sharing bindings and the replay set (§2), and start-up refusals that
/// never print the password.
@Suite(.serialized, .hangLimit(.minutes(1))) struct PostgreSQLRelayTests {
    @Test func registerAnsweredBeforeKillNineSurvives() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        try await LifecycleConformanceTests.expectRegisterSurvivesKillNine(database: ["PUSHGATE_RELAY_DATABASE_URL": url])
    }

    @Test func aSendAcceptedByOneRelayIsAReplayAtTheOther() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let first = try await RelayHarness(settings: ["DATABASE_URL": url])
        let second = try await RelayHarness(settings: ["DATABASE_URL": url])
        let host = first.host()
        let token = TestToken.make()
        #expect(try await host.registerToken(token).status == 200)
        // The binding made through the first relay serves the second.
        #expect(try await second.host(host.key).send(tokens: [token], title: "via second").results.map(\.ok) == [true])

        let body = try RelayRequestSigner(key: host.key).send(tokens: [token], title: "once", ts: first.clock.nowMilliseconds)
        #expect(try await host.post("send", body).results.map(\.ok) == [true])
        let atSecond = second.host(host.key)
        #expect(try await atSecond.post("send", body).errorCode == "replay")
        #expect(try await atSecond.post("send", ReplayAndLimitConformanceTests.highSTwin(of: body)).errorCode == "replay")
        #expect(first.received(token).count == 1)
        #expect(second.received(token).count == 1, "only the fresh send above")
        await first.stop()
        await second.stop()
    }

    @Test func aRegisterReplayedAtTheOtherRelayChangesNothing() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let first = try await RelayHarness(settings: ["DATABASE_URL": url])
        let second = try await RelayHarness(settings: ["DATABASE_URL": url])
        let host = first.host()
        let token = TestToken.make()
        let register = try RelayRequestSigner(key: host.key).registerToken(token, ts: first.clock.nowMilliseconds)
        #expect(try await host.post("register-token", register).status == 200)
        first.clock.advance(milliseconds: 1)
        #expect(try await host.unregisterToken(token).status == 200)
        // Captured and replayed at the other instance: answered 200, the binding stays gone.
        #expect(try await second.host(host.key).post("register-token", register).status == 200)
        #expect(try await second.host(host.key).send(tokens: [token], title: "t").results.map(\.ok) == [false])
        await first.stop()
        await second.stop()
    }

    @Test func eachRelayHoldsItsOwnCeilingWhileTheKeysAreShared() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let first = try await RelayHarness(settings: ["DATABASE_URL": url, "MAX_REPLAY_KEYS": "2"])
        let second = try await RelayHarness(settings: ["DATABASE_URL": url, "MAX_REPLAY_KEYS": "2"])
        #expect(try await first.host().registerToken(TestToken.make()).status == 200)
        #expect(try await first.host().registerToken(TestToken.make()).status == 200)
        let third = try await first.host().registerToken(TestToken.make())
        #expect(third.status == 429 && third.errorCode == "rate_limited", "this client holds the most keys here")
        #expect(try await second.host().registerToken(TestToken.make()).status == 200)
        await first.stop()
        await second.stop()
    }

    @Test func aMalformedDatabaseURLStopsStartUpWithoutPrintingThePassword() async throws {
        let secret = "hunter2-SECRET"
        let relay = try RelayProcess(environment: ["PUSHGATE_RELAY_DRY_RUN": "1", "PUSHGATE_RELAY_PORT": "0",
                                                   "PUSHGATE_RELAY_DATABASE_URL": "postgres://relay:\(secret)@db:port/pushgate"])
        let result = try await onOwnThread { relay.exitStatus() }
        #expect(result.status == 2)
        #expect(result.stderr.contains("PUSHGATE_RELAY_DATABASE_URL") && result.stderr.contains("port"), "\(result.stderr)")
        #expect(!result.stderr.contains(secret))
    }

    @Test func anUnreachableDatabaseStopsStartUpWithoutPrintingThePassword() async throws {
        let secret = "hunter2-SECRET"
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let relay = try RelayProcess(environment: ["PUSHGATE_RELAY_DRY_RUN": "1", "PUSHGATE_RELAY_PORT": "0",
                                                   "PUSHGATE_RELAY_DATABASE_URL": "postgres://relay:\(secret)@127.0.0.1:1/pushgate"])
        let result = try await onOwnThread { relay.exitStatus() }
        #expect(result.status == 1)
        #expect(result.stderr.contains("PostgreSQL connect to postgres://relay:***@127.0.0.1:1/pushgate failed"), "\(result.stderr)")
        #expect(!result.stderr.contains(secret))
    }
}
