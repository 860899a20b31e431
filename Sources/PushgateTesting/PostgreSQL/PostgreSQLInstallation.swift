import Foundation

/// Where the PostgreSQL server binaries are, and which account runs them.
struct PostgreSQLInstallation: Sendable {
    /// The directory holding `initdb`, `postgres` and `createdb`.
    let binDirectory: String
    /// The prefix that starts a server binary under the right account with a parent-death
    /// signal: `setpriv [--reuid postgres --regid postgres --clear-groups] --pdeathsig TERM --`.
    let launcher: [String]
    /// The account that must own the cluster directory, when it is not the current one.
    let owner: (uid: uid_t, gid: gid_t)?

    /// Finds the binaries: the directory `initdb` on `PATH` resolves to, else the newest
    /// `/usr/lib/postgresql/<version>/bin`. `nil` when there are none.
    /// - Throws: when running as root without a `postgres` account or `setpriv` to switch to it
    ///   (initdb and postgres refuse to run as root).
    static func find() throws -> PostgreSQLInstallation? {
        guard let binDirectory = binaryDirectory() else { return nil }
        let setpriv = executable("setpriv")
        guard getuid() == 0 else {
            return PostgreSQLInstallation(binDirectory: binDirectory,
                                          launcher: setpriv.map { [$0, "--pdeathsig", "TERM", "--"] } ?? [], owner: nil)
        }
        guard let account = getpwnam("postgres") else {
            throw ChildProcessError(command: "initdb", reason: "running as root, and there is no postgres account to run the server as")
        }
        guard let setpriv else {
            throw ChildProcessError(command: "initdb", reason: "running as root, and setpriv (util-linux) is missing")
        }
        let (uid, gid) = (account.pointee.pw_uid, account.pointee.pw_gid)
        return PostgreSQLInstallation(
            binDirectory: binDirectory,
            launcher: [setpriv, "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--pdeathsig", "TERM", "--"],
            owner: (uid, gid))
    }

    func binary(_ name: String) -> String { binDirectory + "/" + name }

    private static func binaryDirectory() -> String? {
        let needed = ["initdb", "postgres", "createdb"]
        func complete(_ directory: String) -> Bool {
            needed.allSatisfy { FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
        }
        if let initdb = executable("initdb") {
            let directory = (URL(fileURLWithPath: initdb).resolvingSymlinksInPath().path as NSString).deletingLastPathComponent
            if complete(directory) { return directory }
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        return versions.map { "\(root)/\($0)/bin" }.first(where: complete)
    }

    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)", "/usr/sbin/\(name)"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
