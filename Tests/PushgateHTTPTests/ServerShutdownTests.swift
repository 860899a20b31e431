@testable import PushgateCore
import PushgateHTTP
import Testing
#if canImport(Glibc)
import Glibc
import PushgateTestSupport
import PushgateTesting
#endif

@Suite(.hangLimit(.minutes(1))) struct ServerShutdownTests {
    private static func server(gate: Gate, mode: ServerMode, logger: Logger = Logger(component: "test")) throws -> HTTPServer {
        var router = Router()
        router.get("/slow") { _ in
            await gate.wait()
            return HTTPResponse(status: 200, body: Array("done".utf8))
        }
        return try HTTPServer(configuration: mode.applied(to: HTTPServerConfiguration(logger: logger)), router: router)
    }

    @Test(arguments: ServerMode.allCases)
    func stopAcceptingRefusesNewConnectionsWhileInFlightRequestsFinish(mode: ServerMode) async throws {
        let gate = Gate()
        let server = try Self.server(gate: gate, mode: mode)
        let port = server.port
        let connection = try await onOwnThread { try RawHTTPConnection.sending("GET", "/slow", port: port) }
        await gate.waitForArrivals(1)
        server.stopAccepting()
        let refused = try await onOwnThread { () -> Int32? in
            do throws(SystemError) {
                _ = try RawHTTPConnection(port: port)
                return nil
            } catch {
                return error.errno
            }
        }
        #expect(refused == ECONNREFUSED)
        #expect(await server.waitForInFlight(timeout: .milliseconds(50)) == false)
        await gate.open()
        let (response, closed) = try await onOwnThread { (try connection.readResponse(), connection.closesSilently()) }
        #expect(response.bodyText == "done")
        #expect(response.headers["connection"]?.lowercased() == "close")
        #expect(closed)
        #expect(await server.waitForInFlight(timeout: .seconds(10)))
        server.stop()
        server.stop()
    }

    @Test(arguments: ServerMode.allCases)
    func stopCutsOffHandlersThatNeverFinish(mode: ServerMode) async throws {
        let gate = Gate()
        let sink = Logger.MemorySink()
        let server = try Self.server(gate: gate, mode: mode, logger: Logger(component: "test", sink: sink))
        let port = server.port
        let connection = try await onOwnThread { try RawHTTPConnection.sending("GET", "/slow", port: port) }
        await gate.waitForArrivals(1)
        server.stopAccepting()
        #expect(await server.waitForInFlight(timeout: .milliseconds(50)) == false)
        server.stop()
        #expect(try await onOwnThread { connection.closesSilently() })
        #expect(sink.lines.contains { $0.contains("handlers=1") })
        await gate.open()
    }
}
