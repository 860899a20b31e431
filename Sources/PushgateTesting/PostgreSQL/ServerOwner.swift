import Foundation
import Synchronization

/// The thread that starts `postgres`, reads its log and reaps it. It lives as long as the
/// server: the parent-death signal is tied to the thread that spawned the child, so the
/// server is told to stop when this thread, and with it the test process, goes away. The
/// server runs in a process group of its own, whose id is its pid.
final class ServerOwner: Sendable {
    private struct State {
        var pid: pid_t?
        var failure: String?
        var lines: [String] = []
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    /// Starts the thread, which starts `command`.
    init(command: [String], environment: [String: String], directory: String) {
        Thread { [self] in run(command, environment: environment, directory: directory) }.start()
    }

    /// Blocks until the server accepts connections.
    /// - Throws: when it exited first or was not ready within 60 s, with its last log lines.
    func waitUntilReady() throws {
        guard ready.wait(timeout: .now() + 60) == .success else {
            var unstopped = ""
            do { try stop() } catch { unstopped = " (nor did it stop: \(error))" }
            throw ChildProcessError(command: "postgres", reason: "not ready after 60 s\(unstopped): \(recentLog)")
        }
        if let failure = state.withLock({ $0.failure }) {
            throw ChildProcessError(command: "postgres", reason: failure)
        }
    }

    /// Sends `signal` to every process of the server: the postmaster's process group first (a
    /// stopped postmaster starts no new child), then each child's, since PostgreSQL makes every
    /// child the leader of a process group of its own.
    func signalEveryProcess(_ signal: Int32) {
        guard let pid = state.withLock({ $0.pid }) else { return }
        kill(-pid, signal)
        for child in Self.children(of: pid) { kill(-child, signal) }
    }

    /// The processes whose parent is `parent`, from `/proc/<pid>/stat`.
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let nameEnd = stat.lastIndex(of: ")") else { return nil }
            // After the name in parentheses: the state, then the parent's pid.
            let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    /// Stops the server and waits (up to 15 s) until it has exited; throws when it had not. By
    /// default immediate shutdown (SIGQUIT), which skips the final checkpoint: the cluster is
    /// thrown away; SIGINT is a fast shutdown, which keeps it. A stalled server is continued
    /// first, or it could not act on the signal.
    func stop(_ signal: Int32 = SIGQUIT) throws {
        guard let pid = state.withLock({ $0.pid }) else { return }
        signalEveryProcess(SIGCONT)
        kill(pid, signal)
        guard exited.wait(timeout: .now() + 15) == .success else {
            throw ChildProcessError(command: "postgres", reason: "still running 15 s after signal \(signal): \(recentLog)")
        }
    }

    /// The last lines of the server's log.
    var recentLog: String { state.withLock { $0.lines.joined(separator: "\n") } }

    private func run(_ command: [String], environment: [String: String], directory: String) {
        let process: PostgreSQLProcess
        do {
            process = try PostgreSQLProcess(command, environment: environment, directory: directory, output: .pipe,
                                            newProcessGroup: true)
        } catch {
            state.withLock { $0.failure = "\(error)" }
            ready.signal()
            return
        }
        state.withLock { $0.pid = process.pid }
        var isReady = false
        readLines(process.outputFD) { line in
            state.withLock { state in
                state.lines.append(line)
                if state.lines.count > 40 { state.lines.removeFirst() }
            }
            if !isReady, line.contains("ready to accept connections") {
                isReady = true
                ready.signal()
            }
        }
        close(process.outputFD)
        let status = process.wait()
        // Gone: a later stop or signal has nothing to act on (and a pid that may be reused).
        state.withLock { $0.pid = nil }
        if !isReady {
            state.withLock { $0.failure = "exited with status \(status) before accepting connections: \($0.lines.joined(separator: "\n"))" }
            ready.signal()
        }
        exited.signal()
    }

    /// Calls `body` with every line read from `fd` until end of file.
    private func readLines(_ fd: Int32, _ body: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var line: [UInt8] = []
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                if byte == 0x0A {
                    body(String(decoding: line, as: UTF8.self))
                    line.removeAll(keepingCapacity: true)
                } else {
                    line.append(byte)
                }
            }
        }
    }
}
