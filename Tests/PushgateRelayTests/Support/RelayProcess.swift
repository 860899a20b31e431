import Foundation
import PushgateTesting
import Synchronization

/// The built `pushgate-relay` binary as a child process (posix_spawn, pipes, waitpid), for
/// signal and crash tests. Every method blocks: call them through ``onOwnThread(_:)``.
final class RelayProcess: Sendable {
    static let binary = BuiltProducts.path("pushgate-relay")

    let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    private let stderrText = Mutex("")
    private let metricsLine = Mutex<String?>(nil)

    /// Unless `environment` says otherwise, the metrics listener takes a free port, so relays
    /// started side by side never collide on the default 127.0.0.1:9788.
    init(arguments: [String] = [], environment: [String: String]) throws {
        var environment = SanitizerEnvironment.adding(to: environment)
        if environment["PUSHGATE_RELAY_METRICS_LISTEN"] == nil { environment["PUSHGATE_RELAY_METRICS_LISTEN"] = "127.0.0.1:0" }
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, outPipe[0])
        posix_spawn_file_actions_addclose(&actions, errPipe[0])
        let argv = ([Self.binary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, Self.binary, &actions, nil, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        pid = child
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
    }

    deinit {
        close(stdoutFD)
        close(stderrFD)
    }

    /// Reads standard output up to the `listening HOST:PORT` line and returns the port; keeps
    /// the `metrics HOST:PORT` line printed before it.
    func port() -> Int? {
        readLine(stdoutFD) { line in
            if line.hasPrefix("metrics ") { metricsLine.withLock { $0 = line } }
            return line.hasPrefix("listening ")
        }.flatMap(Self.port(of:))
    }

    /// The metrics listener's port, once ``port()`` has returned; `nil` when it is off.
    func metricsPort() -> Int? { metricsLine.withLock { $0 }.flatMap(Self.port(of:)) }

    private static func port(of line: String) -> Int? { line.split(separator: ":").last.flatMap { Int($0) } }

    /// Reads standard output to its end (the process exited or closed it).
    func standardOutput() -> String {
        var lines: [String] = []
        _ = readLine(stdoutFD) { line in
            lines.append(line)
            return false
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Reads standard error until a line contains `text`; `nil` if the process closed it first.
    @discardableResult
    func waitForLog(_ text: String) -> String? { readLine(stderrFD) { $0.contains(text) } }

    /// Waits for the process to end; its exit status and everything it wrote to standard error.
    func exitStatus() -> (status: Int32, stderr: String) {
        _ = readLine(stderrFD) { _ in false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), stderrText.withLock { $0 })
    }

    func signal(_ number: Int32) { kill(pid, number) }

    private func readLine(_ fd: Int32, matching: (String) -> Bool) -> String? {
        var buffer = [UInt8]()
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte != 0x0A {
                buffer.append(byte)
                continue
            }
            let line = String(decoding: buffer, as: UTF8.self)
            buffer.removeAll()
            if fd == stderrFD { stderrText.withLock { $0 += line + "\n" } }
            if matching(line) { return line }
        }
        return nil
    }
}
