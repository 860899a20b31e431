import Foundation
import Testing
import PushgateCore
import PushgateProviders
import PushgateTesting
import PushgateTestSupport

/// A relay process on a PostgreSQL server that stops answering (docs/relay.md "Deadlines"):
/// every process of the server is stopped with SIGSTOP, as a hung database host would be.
@Suite(.serialized, .hangLimit(.minutes(1))) struct StalledDatabaseTests {
    static let requestDeadlineMs = 2_000

    @Test func signedRequestsAnswer503WithinTheDeadlineAndTheRelayRecoversAfterSIGCONT() async throws {
        guard let server = try await PostgreSQLTestServer.startPrivate() else {
            try Test.cancel("PostgreSQL server binaries not installed (Scripts/bootstrap installs them)")
        }
        // The relay and the server go whatever happens; the first failure is reported.
        var failure: (any Error)?
        do {
            let relay = try RelayProcess(environment: [
                "PUSHGATE_RELAY_DATABASE_URL": try await server.createDatabase(), "PUSHGATE_RELAY_PORT": "0",
                "PUSHGATE_RELAY_DRY_RUN": "true", "PUSHGATE_RELAY_REQUEST_DEADLINE_MS": "\(Self.requestDeadlineMs)",
                "PUSHGATE_GATEWAY_PUBLIC_URL": Self.gatewayOrigin,
            ])
            do {
                try await Self.expectStallAnsweredAndRecovered(relay, server)
            } catch {
                failure = error
            }
            relay.signal(SIGKILL)
            _ = try await onOwnThread { relay.exitStatus() }
        } catch {
            failure = failure ?? error
        }
        do { try await server.stop() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }

    static let gatewayOrigin = "http://127.0.0.1"

    /// `POST /v1/host/challenge` for a fresh host: the gateway stores every challenge it issues.
    private static func gatewayChallenge(port: Int) async throws -> RawHTTPConnection.Response {
        let host = HostChallengeAnswerer(keyPair: try BoxKeyPair.generate(), gatewayOrigin: gatewayOrigin)
        return try await onOwnThread {
            let client = try RawHTTPConnection(port: UInt16(port), receiveTimeoutSeconds: 5)
            client.sendUnlessClosed(RawHTTPConnection.request("POST", "/v1/host/challenge", body: host.challengeRequest.serializedBytes(),
                                               headers: ["Content-Type: application/json"]))
            return try client.readResponse()
        }
    }

    private static func expectStallAnsweredAndRecovered(_ relay: RelayProcess, _ server: PostgreSQLTestServer) async throws {
        let port = try #require(await onOwnThread { relay.port() })
        let key = P256PrivateKey()
        let host = SignedRelayClient(baseURL: "http://127.0.0.1:\(port)", key: key)
        let bound = TestToken.make()
        #expect(try await host.registerToken(bound).status == 200)

        server.stall()
        // Continued even when an expectation below throws: a stopped server outlives the test otherwise.
        defer { server.resume() }
        let token = TestToken.make()
        for (name, call) in [("register", { try await host.registerToken(token) }),
                             ("send", { try await host.send(tokens: [bound], title: "stalled") })] {
            let started = ContinuousClock.now
            let reply = try await call()
            let elapsed = started.duration(to: .now)
            #expect(reply.status == 503 && reply.errorCode == "dependency_unavailable", "\(name): \(reply.status)")
            #expect(elapsed < .milliseconds(requestDeadlineMs), "\(name) answered after \(elapsed)")
        }
        let started = ContinuousClock.now
        let challenge = try await Self.gatewayChallenge(port: port)
        #expect(challenge.status == 503 && String(decoding: challenge.body, as: UTF8.self).contains("dependency_unavailable"),
                "the gateway: \(challenge.status)")
        #expect(started.duration(to: .now) < .milliseconds(requestDeadlineMs), "the gateway answered late")
        // The same signed register twice at once: the copy answers as the original does, never 200
        // while the original fails.
        let register = try RelayRequestSigner(key: key).registerToken(token, ts: SystemClock().nowMilliseconds)
        async let original = host.post("register-token", register)
        async let copy = host.post("register-token", register)
        #expect(try await [original, copy].map(\.errorCode) == ["dependency_unavailable", "dependency_unavailable"])

        let health = try await onOwnThread {
            let client = try RawHTTPConnection(port: UInt16(port), receiveTimeoutSeconds: 5)
            client.sendUnlessClosed(RawHTTPConnection.request("GET", "/healthz"))
            return try client.readResponse()
        }
        #expect(health.status == 200)

        server.resume()
        // The same relay, without a restart: the dropped connections are opened again.
        #expect(try await host.registerToken(token).status == 200)
        #expect(try await host.send(tokens: [token], title: "recovered").results.map(\.ok) == [true])
        let again = try RelayRequestSigner(key: key).registerToken(TestToken.make(), ts: SystemClock().nowMilliseconds)
        async let first = host.post("register-token", again)
        async let second = host.post("register-token", again)
        #expect(try await [first, second].map(\.status) == [200, 200])
        #expect(try await Self.gatewayChallenge(port: port).status == 200)
    }
}
