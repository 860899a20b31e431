import Dispatch
import Foundation
import PushgateCommandLine

/// Runs a server command in the foreground: signals are routed before it starts, the
/// `listening 127.0.0.1:<port>` line goes out once it accepts connections, SIGUSR1 drops its
/// connections, SIGHUP reads its script again, and SIGTERM or SIGINT stops it (exit 0).
enum ForegroundServer {
    /// A started server, as the foreground loop drives it.
    struct Handle {
        let port: UInt16
        let stop: () -> Void
        /// Closes every open connection and keeps listening.
        let dropConnections: () -> Void
        /// Reads the `--script` file again and installs it.
        let reloadScript: () -> Void
    }

    /// The `--port` (default 0) and `--max-streams` (1…100000, default 1000) options of a fake server.
    static func listenOptions(_ arguments: inout ArgumentList) throws -> (port: UInt16, maxStreams: Int) {
        var port: UInt16 = 0
        var maxStreams = 1000
        if let text = arguments.option("port") {
            guard let value = UInt16(text) else { throw UsageError("--port must be a number from 0 to 65535") }
            port = value
        }
        if let text = arguments.option("max-streams") {
            guard let value = Int(text), (1...100_000).contains(value) else { throw UsageError("--max-streams must be from 1 to 100000") }
            maxStreams = value
        }
        return (port, maxStreams)
    }

    /// `start` starts the server and returns its handle.
    static func run(_ start: () throws -> Handle) throws -> Int32 {
        // Routed before the server starts, so no signal is lost or acts by default meanwhile.
        let signals = SignalInbox(catching: [SIGTERM, SIGINT, SIGUSR1, SIGHUP])
        defer { signals.cancel() }
        let server = try start()
        // Unbuffered, so a script waiting for this line sees it at once.
        FileHandle.standardOutput.write(Data("listening 127.0.0.1:\(server.port)\n".utf8))
        while true {
            switch signals.next() {
            case SIGUSR1: server.dropConnections()
            case SIGHUP: server.reloadScript()
            default:
                server.stop()
                return 0
            }
        }
    }
}
