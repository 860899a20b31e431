import Foundation
import PushgateCore
import PushgateTestSupport
import PushgateTesting
import Testing

/// The built relay under a service manager's `NOTIFY_SOCKET` (a datagram socket the test binds):
/// `READY=1` once it listens, `WATCHDOG=1` while it runs, `STOPPING=1` at SIGTERM.
@Suite(.hangLimit(.minutes(1))) struct ServiceManagerTests {
    @Test func theRelayIsReadyOnceItListensPingsTheWatchdogAndSaysWhenItStops() async throws {
        let directory = try TemporaryDirectory.create("notify").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = try NotifySocket()
        let relay = try await ServerProcess.start(
            "relay", executable: RelayProcess.binary, arguments: ["--dry-run", "--port", "0"],
            environment: ["NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "100000", "PUSHGATE_RELAY_METRICS_LISTEN": "off",
                          "PUSHGATE_RELAY_DATABASE_PATH": directory + "/relay.sqlite"],
            logFile: directory + "/relay.log")
        #expect(try await onOwnThread(within: 30, "READY=1") { try socket.receive(within: 30) } == "READY=1")
        // Ready means listening: the port answers at once.
        let health = try await onOwnThread { () throws in
            let client = try RawHTTPConnection(port: relay.port)
            _ = client.sendUnlessClosed(RawHTTPConnection.request("GET", "/healthz", headers: ["Connection: close"]))
            return try client.readResponse().status
        }
        #expect(health == 200)
        let pings = try await onOwnThread(within: 30, "two WATCHDOG=1") { [try socket.receive(within: 30), try socket.receive(within: 30)] }
        #expect(pings == ["WATCHDOG=1", "WATCHDOG=1"])
        relay.child.signal(SIGTERM)
        // Pings sent before the signal may still be queued ahead of STOPPING=1.
        let beforeStopping = try await onOwnThread(within: 30, "STOPPING=1") { try socket.receive(until: "STOPPING=1", within: 30) }
        #expect(beforeStopping.allSatisfy { $0 == "WATCHDOG=1" })
        #expect(try await relay.stop() == 0)
    }
}
