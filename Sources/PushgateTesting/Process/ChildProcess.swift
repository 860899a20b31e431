import Foundation
import PushgateCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`: its input written up front, standard output and
/// error on pipes (or standard error appended to a log file), reaped with `waitpid`. Every
/// method blocks; async tests call them through ``onOwnThread(_:)``. A child still running when
/// this is released is killed and reaped, so a failing test leaves no stray process.
public final class ChildProcess: Sendable {
    /// How the child ended and everything it wrote.
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal number when a signal ended the child.
        public let status: Int32
        public let stdout: String
        /// Empty when standard error went to a log file.
        public let stderr: String
    }

    private struct Output {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        /// Where the first line ``readLine(where:)`` has not returned yet starts in `stdout`.
        var unreadLineStart = 0
        var stdoutOpen = true
        var stderrOpen = true
        var exitStatus: Int32?
    }

    public let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    private let output = Mutex(Output())

    /// Writing input to a child that already exited must fail with EPIPE, not end the test run.
    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    /// Starts `executable` with `arguments` (without the program name) and `environment` (the
    /// test process's own when `nil`; else with the test's sanitizer settings added), writes
    /// `input` to its standard input and closes it.
    /// With `logFile`, standard error is appended to that file instead of a pipe: a server that
    /// runs for a while logs more than a pipe holds while nobody reads it.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil, input: [UInt8] = [],
                logFile: String? = nil) throws {
        Self.ignoreBrokenPipes
        // Close-on-exec, so a child spawned meanwhile on another thread inherits none of them;
        // the dup2 onto 0, 1 and 2 clears the flag for this child only.
        let stdin = try Self.pipe(), stdout = try Self.pipe()
        let stderr = logFile == nil ? try Self.pipe() : nil
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
        if let stderr {
            posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
        } else if let logFile {
            posix_spawn_file_actions_addopen(&actions, 2, logFile, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
        let environment = environment.map(SanitizerEnvironment.adding) ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        ([stdin.read, stdout.write] + (stderr.map { [$0.write] } ?? [])).forEach { _ = close($0) }
        guard result == 0 else {
            ([stdin.write, stdout.read] + (stderr.map { [$0.read] } ?? [])).forEach { _ = close($0) }
            throw SystemError(operation: "posix_spawn \(executable)", errno: result)
        }
        pid = child
        stdoutFD = stdout.read
        stderrFD = stderr?.read ?? -1
        if stderr == nil { output.withLock { $0.stderrOpen = false } }
        var written = 0
        while written < input.count {
            let count = input[written...].withUnsafeBytes { write(stdin.write, $0.baseAddress, $0.count) }
            if count > 0 { written += count } else if errno != EINTR { break }
        }
        close(stdin.write)
    }

    deinit {
        if output.withLock({ $0.exitStatus == nil }) {
            kill(pid, SIGKILL)
            _ = Self.reap(pid)
        }
        close(stdoutFD)
        if stderrFD >= 0 { close(stderrFD) }
    }

    /// Reads standard output up to the first line (without its newline) for which `matches` is
    /// true; `nil` when the child closed its standard output first. Lines read stay part of
    /// ``finish()``'s `stdout`.
    public func readLine(where matches: (String) -> Bool) -> String? {
        while true {
            let line = output.withLock { output -> String? in
                guard let newline = output.stdout[output.unreadLineStart...].firstIndex(of: 0x0A) else { return nil }
                defer { output.unreadLineStart = newline + 1 }
                return String(decoding: output.stdout[output.unreadLineStart..<newline], as: UTF8.self)
            }
            if let line {
                if matches(line) { return line }
                continue
            }
            guard output.withLock({ $0.stdoutOpen }) else { return nil }
            readChunk(from: stdoutFD)
        }
    }

    /// Sends `number` to the child.
    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// The exit status when the child has ended (it is reaped then), else nil; does not wait.
    public var exitStatusIfEnded: Int32? {
        output.withLock { output in
            if output.exitStatus == nil { output.exitStatus = Self.reap(pid, waiting: false) }
            return output.exitStatus
        }
    }

    /// Reads the pipes until the child closes them, waits for it to exit and returns the outcome.
    public func finish() -> Outcome {
        while output.withLock({ $0.stdoutOpen || $0.stderrOpen }) {
            var descriptors = output.withLock { output in
                (output.stdoutOpen ? [stdoutFD] : []) + (output.stderrOpen ? [stderrFD] : [])
            }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { break }
            for descriptor in descriptors where descriptor.revents != 0 { readChunk(from: descriptor.fd) }
        }
        // Reaped outside the lock: ``exitStatusIfEnded`` may reap it first, and then keeps the status.
        if output.withLock({ $0.exitStatus == nil }), let status = Self.reap(pid) {
            output.withLock { $0.exitStatus = $0.exitStatus ?? status }
        }
        return output.withLock { output in
            Outcome(status: output.exitStatus ?? -1, stdout: String(decoding: output.stdout, as: UTF8.self),
                    stderr: String(decoding: output.stderr, as: UTF8.self))
        }
    }

    /// One `read` from `descriptor` into the matching buffer; end of file marks it closed.
    private func readChunk(from descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        output.withLock { output in
            let bytes = chunk.prefix(max(count, 0))
            switch (descriptor == stdoutFD, count > 0) {
            case (true, true): output.stdout += bytes
            case (true, false): output.stdoutOpen = false
            case (false, true): output.stderr += bytes
            case (false, false): output.stderrOpen = false
            }
        }
    }

    private static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard Glibc.pipe(&descriptors) == 0 else { throw .last("pipe") }
        descriptors.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// Waits for `pid` to exit; its exit status, or 128 + the signal that ended it. Not
    /// `waiting`: nil at once when it is still running.
    private static func reap(_ pid: pid_t, waiting: Bool = true) -> Int32? {
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(pid, &status, waiting ? 0 : WNOHANG) } while reaped < 0 && errno == EINTR
        guard reaped == pid else { return nil }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
