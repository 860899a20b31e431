import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// A `pushgate-dev fake-apns` or `pushgate-dev fake-fcm` child process that has printed its listening line.
struct FakeProviderProcess: Sendable {
    let process: ChildProcess
    let port: UInt16

    /// Starts `pushgate arguments…` and waits for `listening 127.0.0.1:<port>`.
    static func start(_ arguments: [String]) async throws -> FakeProviderProcess {
        let process = try PushgateTool.start(program: .dev, arguments)
        let line = try await onOwnThread { process.readLine { $0.hasPrefix("listening ") } }
        #expect(line?.hasPrefix("listening 127.0.0.1:") == true)
        return FakeProviderProcess(process: process, port: try #require(PushgateTool.port(ofListeningLine: line)))
    }

    /// The `--record` file at `path`, one JSON value a line; it must be mode 0600 (lines hold device tokens).
    static func records(_ path: String) throws -> [JSONValue] {
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    /// Sends `signal` and expects a clean stop: exit 0 and nothing on stdout but the listening
    /// line. Returns what the fake wrote to stderr.
    func stop(_ signal: Int32 = SIGTERM) async throws -> String {
        process.signal(signal)
        let outcome = try await onOwnThread { process.finish() }
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "listening 127.0.0.1:\(port)\n")
        return outcome.stderr
    }
}
