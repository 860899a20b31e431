import Foundation
import PushgateTesting

/// Runs the built `pushgate`, `pushgate-dev` and `pushgate-relay` executables and captures what they print.
enum PushgateTool {
    typealias Outcome = ChildProcess.Outcome

    /// The package root: this file lives in Tests/pushgateTests/.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The two command-line tools: the operators' and the developers' (the fakes, the bench).
    enum Program {
        case pushgate, dev

        var path: String { BuiltProducts.path(self == .pushgate ? "pushgate" : "pushgate-dev") }
    }

    static let relayExecutable = BuiltProducts.path("pushgate-relay")

    /// Runs `pushgate arguments…` (or `pushgate-dev`'s) to its end, feeding `input` on standard input.
    static func run(program: Program = .pushgate, _ arguments: [String], input: String = "") throws -> Outcome {
        try start(program: program, arguments, input: input).finish()
    }

    /// ``run(program:_:input:)`` on a thread of its own, for async tests.
    static func runOnOwnThread(program: Program = .pushgate, _ arguments: [String]) async throws -> Outcome {
        try await onOwnThread { try run(program: program, arguments) }
    }

    /// Starts `pushgate arguments…` (or `pushgate-dev`'s) and returns at once (long-running
    /// commands such as `fake-apns`).
    static func start(program: Program = .pushgate, _ arguments: [String], input: String = "") throws -> ChildProcess {
        try ChildProcess(executable: program.path, arguments: arguments, input: Array(input.utf8))
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
