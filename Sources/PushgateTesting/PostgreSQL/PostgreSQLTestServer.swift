import Foundation
import PushgateCore
import Synchronization

/// A private PostgreSQL server for tests: a fresh cluster in a temporary directory, trust
/// authentication for the user ``user``, listening on 127.0.0.1 at a free port and on a unix
/// socket in that directory.
///
/// One server per test process, started on first use of ``shared()`` and stopped (immediate
/// shutdown, directory removed) when the process exits. Should the process die instead, the
/// server gets SIGTERM as its parent-death signal. As root (CI), `initdb` and `postgres` run as
/// the `postgres` account, which owns the directory, because they refuse to run as root. Every
/// blocking step runs on a thread of its own, never on the cooperative pool.
public final class PostgreSQLTestServer: Sendable {
    /// The role every test connects as (a superuser; trust authentication).
    public static let user = "pushgate"

    /// The port on 127.0.0.1.
    public let port: Int
    /// The cluster's temporary directory; the unix socket lives here too.
    public let directory: String
    private let installation: PostgreSQLInstallation
    /// What starts `postgres` on this cluster and port, again after ``shutDown()``.
    private let command: [String]
    /// The owner of the running server; a new one after ``startAgain()``.
    private let owner: Mutex<ServerOwner>

    private init(port: Int, directory: String, installation: PostgreSQLInstallation, command: [String], owner: ServerOwner) {
        self.port = port
        self.directory = directory
        self.installation = installation
        self.command = command
        self.owner = Mutex(owner)
    }

    private static let startup = Mutex<Task<PostgreSQLTestServer?, any Error>?>(nil)
    private static let running = Mutex<PostgreSQLTestServer?>(nil)

    /// The test process's server, started by the first call; `nil` when the PostgreSQL server
    /// binaries are not installed (the only case in which PostgreSQL tests may skip).
    /// - Throws: when the binaries are there but the server cannot be started.
    public static func shared() async throws -> PostgreSQLTestServer? {
        let task = startup.withLock { task in
            if let task { return task }
            let started = Task {
                try await onOwnThread {
                    let server = try start()
                    running.withLock { $0 = server }
                    atexit { PostgreSQLTestServer.stopAtExit() }
                    return server
                }
            }
            task = started
            return started
        }
        return try await task.value
    }

    /// The URL of database `name`, with `password` in it when given (trust authentication
    /// never asks for it).
    public func url(database name: String, password: String? = nil) -> String {
        "postgres://\(Self.user)\(password.map { ":" + $0 } ?? "")@127.0.0.1:\(port)/\(name)"
    }

    /// Creates an empty database with a fresh name; returns its URL.
    /// - Parameter icuLocale: an ICU locale (`en-US`) for the database's default collation;
    ///   `nil` keeps the cluster's byte-order `C` collation.
    public func createDatabase(icuLocale: String? = nil) async throws -> String {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let locale = icuLocale.map { ["--template=template0", "--locale-provider=icu", "--icu-locale=\($0)"] } ?? []
        let arguments = [installation.binary("createdb"), "-h", directory, "-p", "\(port)", "-U", Self.user] + locale + [name]
        let directory = directory
        try await onOwnThread {
            try PostgreSQLProcess.run(arguments, environment: Self.environment, directory: directory, log: directory + "/createdb.log")
        }
        return url(database: name)
    }

    /// The last lines the server wrote, for failure messages.
    public var recentLog: String { owner.withLock { $0 }.recentLog }

    private static let environment = ["LC_ALL": "C", "PATH": "/usr/bin:/bin"]

    private static func start() throws -> PostgreSQLTestServer? {
        guard let installation = try PostgreSQLInstallation.find() else { return nil }
        // The postgres account must reach the directory: root's TMPDIR may be private, /tmp is not.
        let parent = installation.owner == nil ? NSTemporaryDirectory() : "/tmp/"
        var template = Array((parent + "pushgate-pg-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw SystemError.last("mkdtemp")
        }
        let directory = String(cString: created)
        if let owner = installation.owner, chown(directory, owner.uid, owner.gid) != 0 {
            throw SystemError.last("chown \(directory)")
        }
        try PostgreSQLProcess.run(installation.launcher + [installation.binary("initdb"), "-D", directory + "/data", "-U", user,
                                                      "--auth=trust", "--no-sync", "--locale=C", "--encoding=UTF8"],
                             environment: environment, directory: directory, log: directory + "/initdb.log")
        let port = try freePort()
        let command = installation.launcher + [
            installation.binary("postgres"), "-D", directory + "/data", "-p", "\(port)", "-k", directory,
            "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=100", "-c", "shared_buffers=32MB",
        ]
        let owner = ServerOwner(command: command, environment: environment, directory: directory)
        try owner.waitUntilReady()
        return PostgreSQLTestServer(port: port, directory: directory, installation: installation, command: command, owner: owner)
    }

    private static func stopAtExit() {
        do {
            try running.withLock { $0 }?.stopNow()
        } catch {
            FileHandle.standardError.write(Data("PostgreSQLTestServer: stopping the shared server at exit: \(error)\n".utf8))
        }
    }

    /// A server of the caller's own, for a test that stalls or stops it without disturbing the
    /// others; `nil` when the binaries are not installed. The caller ends it with ``stop()``.
    public static func startPrivate() async throws -> PostgreSQLTestServer? {
        try await onOwnThread { try start() }
    }

    /// Stops every process of the server with `SIGSTOP` (the postmaster's process group, then
    /// each backend's, which PostgreSQL makes a group of its own): its sockets stay open and
    /// accept connections, but nothing answers, as with a hung database host.
    public func stall() { owner.withLock { $0 }.signalEveryProcess(SIGSTOP) }

    /// Continues a stalled server (`SIGCONT` to every process).
    public func resume() { owner.withLock { $0 }.signalEveryProcess(SIGCONT) }

    /// Shuts a server from ``startPrivate()`` down as `pg_ctl stop` does by default (fast
    /// shutdown, SIGINT: sessions are ended, the cluster is kept) and waits until it has exited;
    /// ``startAgain()`` brings it back.
    /// Throws when it had not exited within 15 s.
    public func shutDown() async throws {
        let running = owner.withLock { $0 }
        try await onOwnThread { try running.stop(SIGINT) }
    }

    /// Starts the server again after ``shutDown()``, on the same cluster and port; returns once
    /// it accepts connections.
    public func startAgain() async throws {
        let owner = ServerOwner(command: command, environment: Self.environment, directory: directory)
        self.owner.withLock { $0 = owner }
        try await onOwnThread { try owner.waitUntilReady() }
    }

    /// Stops a server from ``startPrivate()`` (continuing it first) and removes its directory;
    /// throws when it had not exited within 15 s or the directory could not be removed.
    public func stop() async throws {
        try await onOwnThread { [self] in try stopNow() }
    }

    private func stopNow() throws {
        try owner.withLock { $0 }.stop()
        try FileManager.default.removeItem(atPath: directory)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw SystemError.last("bind") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
