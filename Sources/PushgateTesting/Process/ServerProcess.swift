import Foundation

/// A server executable run as a child process that prints `listening HOST:PORT` once it
/// serves (`pushgate-dev fake-apns`, `pushgate-relay`, `pushgate-host`), its standard error in a
/// log file. Every wait has a time limit: a child that does not start, or does not stop, is
/// killed and the error names it and shows the end of its log.
public final class ServerProcess: Sendable {
    /// What the error messages call it (`fake APNs`, `relay`, …).
    public let name: String
    public let child: ChildProcess
    public let port: UInt16
    /// The port of the `metrics HOST:PORT` line printed before `listening`, when there was one.
    public let metricsPort: UInt16?
    public let logFile: String

    private init(name: String, child: ChildProcess, port: UInt16, metricsPort: UInt16?, logFile: String) {
        self.name = name
        self.child = child
        self.port = port
        self.metricsPort = metricsPort
        self.logFile = logFile
    }

    /// Starts `executable` and waits up to `seconds` for its listening line.
    public static func start(_ name: String, executable: String, arguments: [String] = [], environment: [String: String],
                             logFile: String, within seconds: Double = 30) async throws -> ServerProcess {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment, logFile: logFile)
        let lines = try? await onOwnThread(within: seconds, "\(name) start") { () -> (metrics: String?, listening: String?) in
            let first = child.readLine { $0.hasPrefix("listening ") || $0.hasPrefix("metrics ") }
            guard let first, first.hasPrefix("metrics ") else { return (nil, first) }
            return (first, child.readLine { $0.hasPrefix("listening ") })
        }
        func portOf(_ line: String?) -> UInt16? { line.flatMap { $0.split(separator: ":").last }.flatMap { UInt16($0) } }
        guard let port = portOf(lines?.listening) else {
            child.signal(SIGKILL)
            let status = try await onOwnThread(within: 10, "\(name) exit after SIGKILL") { child.finish().status }
            throw ChildProcessError(command: name, reason: "no listening line within \(seconds) s (exit status \(status)); "
                                    + "the end of \(logFile):\n\(logTail(logFile))")
        }
        return ServerProcess(name: name, child: child, port: port, metricsPort: portOf(lines?.metrics), logFile: logFile)
    }

    /// Sends `signal` and waits up to `seconds` for the exit; returns the exit status (128 + the
    /// signal when one ended it). A child still running then is killed, and this throws.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, within seconds: Double = 15) async throws -> Int32 {
        child.signal(signal)
        do {
            return try await onOwnThread(within: seconds, "\(name) exit after signal \(signal)") { [child] in child.finish().status }
        } catch {
            child.signal(SIGKILL)
            throw ChildProcessError(command: name, reason: "still running \(seconds) s after signal \(signal) (killed); "
                                    + "the end of \(logFile):\n\(Self.logTail(logFile))")
        }
    }

    /// Throws when the child has already ended: it crashed or quit on its own.
    public func checkRunning() throws {
        guard let status = child.exitStatusIfEnded else { return }
        throw ChildProcessError(command: name, reason: "ended unexpectedly with status \(status); "
                                + "the end of \(logFile):\n\(Self.logTail(logFile))")
    }

    /// The last lines of the log.
    public static func logTail(_ path: String, lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
