import Foundation
import PushgateTesting

/// Runs the built `pushgate` and `pushgate-relay` executables and captures what they print.
enum PushgateTool {
    typealias Outcome = ChildProcess.Outcome

    /// The package root: this file lives in Tests/pushgateTests/.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let executable = BuiltProducts.path("pushgate")
    static let relayExecutable = BuiltProducts.path("pushgate-relay")

    /// Runs `pushgate arguments…` to its end, feeding `input` on standard input.
    static func run(_ arguments: [String], input: String = "") throws -> Outcome {
        try start(arguments, input: input).finish()
    }

    /// ``run(_:input:)`` on a thread of its own, for async tests.
    static func runOnOwnThread(_ arguments: [String]) async throws -> Outcome {
        try await onOwnThread { try run(arguments) }
    }

    /// Starts `pushgate arguments…` and returns at once (long-running commands such as `fake-apns`).
    static func start(_ arguments: [String], input: String = "") throws -> ChildProcess {
        try ChildProcess(executable: executable, arguments: arguments, input: Array(input.utf8))
    }

    /// The `Fixtures/<path>` file.
    static func fixture(_ path: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(path)
    }

    /// The port of a `listening HOST:PORT` line.
    static func port(ofListeningLine line: String?) -> UInt16? {
        guard let line, line.hasPrefix("listening "), let port = line.split(separator: ":").last else { return nil }
        return UInt16(port)
    }
}
