import Foundation
import PushgateTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateCore
@testable import PushgateHost
import Testing
import PushgateTestSupport

/// The `pushgate-host` binary: `identity`, `run` with its API and the service manager's
/// `READY=1` and `STOPPING=1`, graceful SIGTERM.
@Suite struct ExecutableTests {
    static let binary = BuiltProducts.path("pushgate-host")

    /// Starts the binary; blocking, so call it through ``onOwnThread(_:)``.
    private static func launch(_ arguments: [String], _ environment: [String: String]) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = SanitizerEnvironment.adding(to: environment)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output.fileHandleForReading)
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first, byte != 0x0A else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func identityPrintsTheServerIdAndRunStopsOnSIGTERM() async throws {
        let home = TemporaryHome()
        let environment = home.environment(["PUSHGATE_IOS_PUSH": "off", "PUSHGATE_HOST_LISTEN": "127.0.0.1:0"])
        let printed = try await onOwnThread { () -> String in
            let (process, output) = try Self.launch(["identity"], environment)
            let line = Self.readLine(output)
            process.waitUntilExit()
            return line
        }
        let settings = try HostSettings.load(environment: environment)
        #expect(printed == settings.serverId)

        // Run under a service manager's NOTIFY_SOCKET, named in the abstract namespace.
        let socket = try NotifySocket(abstract: true)
        let (process, output) = try Self.launch(["run"], environment.merging(["NOTIFY_SOCKET": socket.name]) { $1 })
        let listening = try await onOwnThread { Self.readLine(output) }
        let port = try #require(listening.split(separator: ":").last.flatMap { Int($0) })
        #expect(try await onOwnThread(within: 30, "READY=1") { try socket.receive(within: 30) } == "READY=1")
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/status")!)
        request.setValue("Bearer \(settings.accessToken)", forHTTPHeaderField: "authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONValue.parse(Array(data))["serverId"] == .string(settings.serverId))
        kill(process.processIdentifier, SIGTERM)
        #expect(try await onOwnThread(within: 30, "STOPPING=1") { try socket.receive(within: 30) } == "STOPPING=1")
        let status = try await onOwnThread { () -> Int32 in
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0)
    }
}
