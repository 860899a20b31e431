import Foundation
import Synchronization

/// The built `pushgate-relay` binary as a child process, for signal and crash tests.
final class RelayProcess: Sendable {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/pushgate-relay").path

    let process: Process
    private let stdout: FileHandle
    private let stderr: FileHandle
    private let stderrText = Mutex("")

    init(arguments: [String] = [], environment: [String: String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        stdout = out.fileHandleForReading
        stderr = err.fileHandleForReading
        try process.run()
    }

    /// Reads standard output up to the `listening HOST:PORT` line and returns the port.
    func port() -> Int? {
        readLine(from: stdout) { $0.hasPrefix("listening ") }.flatMap { line in
            line.split(separator: ":").last.flatMap { Int($0) }
        }
    }

    /// Reads standard error until a line contains `text`; `nil` if the process closed it first.
    @discardableResult
    func waitForLog(_ text: String) -> String? {
        readLine(from: stderr) { $0.contains(text) }
    }

    /// Everything read from standard error so far plus the rest once the process has exited.
    func exitStatus() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        let rest = String(decoding: stderr.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stderrText.withLock { $0 } + rest)
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    private func readLine(from handle: FileHandle, matching: (String) -> Bool) -> String? {
        var buffer = [UInt8]()
        while true {
            var byte: UInt8 = 0
            guard read(handle.fileDescriptor, &byte, 1) == 1 else { return nil }
            if byte != 0x0A {
                buffer.append(byte)
                continue
            }
            let line = String(decoding: buffer, as: UTF8.self)
            buffer.removeAll()
            if handle === stderr { stderrText.withLock { $0 += line + "\n" } }
            if matching(line) { return line }
        }
    }
}
