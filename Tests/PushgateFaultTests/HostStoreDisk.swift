import Foundation
import PushgateTesting
#if canImport(Glibc)
import Glibc
#endif

/// A small disk under the host's home, which a scenario fills and frees again so that
/// `host.sqlite` cannot grow: a tmpfs mounted on the home before the host starts (the tests run
/// as root), or, where mounting is refused, a file-size limit on the host process
/// (`RLIMIT_FSIZE`, with SIGXFSZ ignored in the host so that a write past it fails with EFBIG
/// instead of killing the host; it binds the host's log file too). `PRAGMA max_page_count`
/// cannot stand in: it binds only the connection that sets it, never the host's own.
final class HostStoreDisk: Sendable {
    enum Kind: String, Sendable {
        case tmpfs = "tmpfs full"
        case fileSizeLimit = "file-size limit"
    }

    /// The tmpfs's size: room for the host's files in normal use (the WAL checkpoints at 4 MiB).
    static let tmpfsSize = "16m"

    let kind: Kind
    /// The host's home.
    let path: String
    private var fillFile: String { path + "/disk-fill" }

    private init(kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// Creates the home `path` and mounts a tmpfs on it; where that is refused, prepares the
    /// file-size limit instead (the host is then started through ``spawningHost(_:)``).
    static func prepare(at path: String) throws -> HostStoreDisk {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if mount("tmpfs", path, "tmpfs", 0, "size=\(tmpfsSize),mode=0700") == 0 {
            return HostStoreDisk(kind: .tmpfs, path: path)
        }
        let reason = String(cString: strerror(errno))
        guard errno == EPERM else { throw UnexpectedAnswer(description: "mount -t tmpfs on \(path): \(reason)") }
        print("faults: mounting a tmpfs was refused (\(reason)); the host's files get a file-size limit instead")
        return HostStoreDisk(kind: .fileSizeLimit, path: path)
    }

    /// Runs `start`, which spawns the host. With the file-size limit, SIGXFSZ is ignored while it
    /// runs, as the host inherits an ignored signal across exec, and set back right after: the
    /// test process and the children it spawns later keep their SIGXFSZ.
    func spawningHost(_ start: () async throws -> ServerProcess) async throws -> ServerProcess {
        guard kind == .fileSizeLimit else { return try await start() }
        let previous = signal(SIGXFSZ, SIG_IGN)
        defer { signal(SIGXFSZ, previous) }
        return try await start()
    }

    /// Leaves the host no room: the tmpfs filled with one file, or the host process limited to
    /// files no larger than its store's files are now.
    func fill(host: pid_t) throws {
        switch kind {
        case .tmpfs:
            let descriptor = open(fillFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw UnexpectedAnswer(description: "open \(fillFile): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            let chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
            guard errno == ENOSPC else { throw UnexpectedAnswer(description: "filling \(path): \(String(cString: strerror(errno)))") }
        case .fileSizeLimit:
            let sizes = ["host.sqlite", "host.sqlite-wal"].map { name in
                ((try? FileManager.default.attributesOfItem(atPath: path + "/" + name))?[.size] as? Int) ?? 0
            }
            try limitFileSize(of: host, to: "\(sizes.max() ?? 0)")
        }
    }

    /// Gives the room back.
    func free(host: pid_t) throws {
        switch kind {
        case .tmpfs: try FileManager.default.removeItem(atPath: fillFile)
        case .fileSizeLimit: try limitFileSize(of: host, to: "unlimited")
        }
    }

    /// Unmounts the tmpfs (lazily: a host killed a moment ago may still hold it); the home and
    /// everything in it go with it.
    func release() {
        if kind == .tmpfs { umount2(path, Int32(MNT_DETACH)) }
    }

    /// `prlimit(1)` (util-linux): Glibc's `prlimit` does not import into Swift.
    private func limitFileSize(of host: pid_t, to bytes: String) throws {
        let outcome = try ChildProcess(executable: "/usr/bin/prlimit", arguments: ["--pid", "\(host)", "--fsize=\(bytes):unlimited"])
            .finish()
        guard outcome.status == 0 else {
            throw UnexpectedAnswer(description: "prlimit --fsize of the host: status \(outcome.status): \(outcome.stderr)")
        }
    }
}
