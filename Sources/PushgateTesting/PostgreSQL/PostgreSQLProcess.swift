import Foundation
import PushgateCore

/// A child process started with `posix_spawn` for the test PostgreSQL server (`initdb`,
/// `createdb`, `postgres`): its output goes to a log file or one pipe, and it runs in a
/// directory of its own. Every method blocks: callers run them on a thread of their own.
struct PostgreSQLProcess {
    /// Where the child's standard output and error go.
    enum Output {
        /// Appended to this file.
        case file(String)
        /// A pipe; the parent reads ``PostgreSQLProcess/outputFD``.
        case pipe
    }

    let pid: pid_t
    /// The read end of the output pipe (``Output/pipe``), else -1. The owner closes it.
    let outputFD: Int32

    /// Starts `arguments[0]` (an absolute path) with working directory `directory`; in a process
    /// group of its own when `newProcessGroup`, so the group can be signalled without the parent.
    init(_ arguments: [String], environment: [String: String], directory: String, output: Output,
         newProcessGroup: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        switch output {
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .pipe:
            guard pipe(&pipeFDs) == 0 else { throw SystemError.last("pipe for \(arguments[0])") }
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
            posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        }
        // Glibc's posix_spawn_file_actions_addchdir_np does not import; env -C changes directory, then execs.
        let command = ["/usr/bin/env", "-C", directory] + arguments
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newProcessGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, command[0], &actions, &attributes, argv, envp)
        if pipeFDs[1] >= 0 { close(pipeFDs[1]) }
        guard result == 0 else {
            if pipeFDs[0] >= 0 { close(pipeFDs[0]) }
            throw SystemError(operation: arguments[0], errno: result)
        }
        pid = child
        outputFD = pipeFDs[0]
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs a command to its end; throws with the tail of `log` when it fails.
    static func run(_ arguments: [String], environment: [String: String], directory: String, log: String) throws {
        let status = try PostgreSQLProcess(arguments, environment: environment, directory: directory, output: .file(log)).wait()
        guard status == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ChildProcessError(command: arguments.joined(separator: " "),
                                    reason: "exit status \(status): \(text.suffix(2_000))")
        }
    }
}
