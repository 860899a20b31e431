import PushgateTesting
import Testing
@testable import PushgateStore
import PushgateTestSupport

/// Client- and server-side deadlines of the libpq connection (docs/store.md "Deadlines"): a
/// server whose every process is stopped (SIGSTOP) fails calls at their deadline, and the same
/// store works again once the server continues.
@Suite(.serialized, .hangLimit(.minutes(1))) struct PostgreSQLDeadlineTests {
    static let callTimeout = Duration.milliseconds(400)
    /// Room for thread hand-offs on a loaded 2-core machine; far below any libpq or TCP timeout.
    static let slack = Duration.milliseconds(1_500)

    @Test func theSessionCarriesTheServerSideTimeouts() async throws {
        let url = try await PostgreSQLTestServer.required().createDatabase()
        let settings = try await onOwnThread {
            let connection = try PostgreSQLConnection(url: PostgreSQLURL(url), session: .init(writeLockKey: nil, callTimeout: .seconds(2)))
            return try ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"].map { name in
                try connection.texts("SELECT current_setting(?1)", [.text(name)]).first
            }
        }
        #expect(settings == ["2s", "2s", "2s"])
    }

    @Test func callsOnAStalledServerFailAtTheirDeadlineAndTheStoreRecoversAfterSIGCONT() async throws {
        guard let server = try await PostgreSQLTestServer.startPrivate() else {
            try Test.cancel("PostgreSQL server binaries not installed (Scripts/bootstrap installs them)")
        }
        var failure: (any Error)?
        do {
            try await Self.expectStallFailsAndRecovers(server)
        } catch {
            failure = error
        }
        do { try await server.stop() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }

    private static func expectStallFailsAndRecovers(_ server: PostgreSQLTestServer) async throws {
        let url = try PostgreSQLURL(await server.createDatabase())
        let store = try await PostgreSQLBindingStore.open(url: url, callTimeout: callTimeout)
        #expect(try await store.register(token: "aa", kind: .alert, serverId: "s", nowMs: 1, mayAddToken: true) == .created)

        server.stall()
        // Continued even when an expectation below throws: a stopped server would outlive the test.
        defer { server.resume() }
        // Eight writes at once: each is answered by its own deadline, not one timeout after another.
        let started = ContinuousClock.now
        let writes = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
            for index in 0 ..< 8 {
                group.addTask {
                    do {
                        _ = try await store.register(token: "b\(index)", kind: .alert, serverId: "s", nowMs: 2, mayAddToken: true)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(started.duration(to: .now) < callTimeout + slack, "took \(started.duration(to: .now))")
        #expect(writes.allSatisfy { ($0 as? PostgreSQLError)?.isUnavailable == true }, "\(writes)")
        let read = started.duration(to: .now)
        await #expect(throws: PostgreSQLError.self) { try await store.boundTokens(["aa"], kind: .alert, serverId: "s", nowMs: 2) }
        #expect(started.duration(to: .now) - read < callTimeout + slack)
        // A new connection to the stopped server: TCP connects, the server never answers.
        let connecting = ContinuousClock.now
        let refused = await #expect(throws: PostgreSQLError.self) {
            try await onOwnThread {
                _ = try PostgreSQLConnection(url: url, session: .init(writeLockKey: nil, callTimeout: callTimeout))
            }
        }
        #expect(refused?.isUnavailable == true)
        #expect(connecting.duration(to: .now) < callTimeout + slack)

        server.resume()
        #expect(try await store.register(token: "cc", kind: .alert, serverId: "s", nowMs: 3, mayAddToken: true) == .created)
        #expect(try await store.boundTokens(["aa", "cc"], kind: .alert, serverId: "s", nowMs: 3) == ["aa", "cc"])
        await store.close()
    }
}
