internal import CSQLite
import Foundation
import PushgateCore

/// A service's SQLite file seen from outside the running store: checked without being created
/// or changed (`--check-config` of the relay and the host), and copied while the service
/// writes to it (`pushgate-relay backup`).
public enum SQLiteFile {
    /// Why the file cannot serve, or cannot be copied.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// What a service whose migrations end at `latestVersion` would find at `path`, in one
    /// line; throws when it could not open it: unreadable, not a database, a schema newer than
    /// this build, a directory it cannot create.
    public static func check(path: String, latestVersion: Int) throws(Problem) -> String {
        if path == SQLiteConnection.memoryPath { return "in memory: nothing is kept across restarts" }
        guard FileManager.default.fileExists(atPath: path) else {
            let directory = nearestDirectory(above: path)
            guard access(directory, W_OK | X_OK) == 0 else {
                throw Problem(description: "\(path) does not exist and cannot be created: \(directory) is not writable")
            }
            return "\(path), made on first start (schema version \(latestVersion))"
        }
        guard access(path, R_OK | W_OK) == 0 else { throw Problem(description: "\(path) cannot be read and written by this user") }
        let version: Int
        do {
            version = try SQLiteConnection(path: path, access: .readOnly).userVersion()
        } catch {
            throw Problem(description: "\(path) cannot be opened: \(error)")
        }
        guard version <= latestVersion else {
            throw Problem(description: "\(path): " + MigrationError.databaseTooNew(found: version, known: latestVersion).description)
        }
        return "\(path), schema version \(version)" + (version < latestVersion ? ", migrated to \(latestVersion) at start" : "")
    }

    /// Copies the database at `source` to `destination`, consistent even while the relay
    /// writes to it (``SQLiteConnection/copy(from:)``). The copy goes to a new file beside
    /// `destination` (mode 0600) that is checked, switched out of WAL mode so it is one
    /// self-contained file, synced and renamed over `destination`: a reader of `destination`
    /// sees the previous file or the whole copy. Returns the pages copied.
    public static func backup(from source: String, to destination: String) throws(Problem) -> Int {
        guard source != SQLiteConnection.memoryPath, FileManager.default.fileExists(atPath: source) else {
            throw Problem(description: "there is no database at \(source)")
        }
        if let sourceFile = realpath(source, nil) {
            defer { free(sourceFile) }
            if let destinationFile = realpath(destination, nil) {
                defer { free(destinationFile) }
                guard strcmp(sourceFile, destinationFile) != 0 else { throw Problem(description: "\(destination) is the database itself") }
            }
        }
        let temporary = destination + ".tmp-" + Hex.encode(SecureRandom.bytes(6))
        do {
            try PrivateFile.create(temporary, contents: [])
            let pages = try copy(from: source, into: temporary)
            try sync(temporary)
            guard rename(temporary, destination) == 0 else {
                throw Problem(description: "cannot rename the copy to \(destination): \(String(cString: strerror(errno)))")
            }
            try sync((destination as NSString).deletingLastPathComponent.isEmpty ? "." : (destination as NSString).deletingLastPathComponent)
            return pages
        } catch {
            for leftover in [temporary, temporary + "-wal", temporary + "-shm", temporary + "-journal"] { unlink(leftover) }
            throw error as? Problem ?? Problem(description: "\(error)")
        }
    }

    /// Copies, checks and closes; both connections are gone when it returns.
    private static func copy(from source: String, into temporary: String) throws -> Int {
        let copy = try SQLiteConnection(path: temporary)
        let pages = try copy.copy(from: SQLiteConnection(path: source, access: .readOnly))
        let check = try copy.texts("PRAGMA quick_check", [])
        guard check == ["ok"] else { throw Problem(description: "the copy fails SQLite's check: \(check.prefix(3).joined(separator: "; "))") }
        try copy.execute("PRAGMA journal_mode = DELETE")
        return pages
    }

    /// fsync(2) of a file or directory, so what was written, or renamed in it, survives a power cut.
    private static func sync(_ path: String) throws(Problem) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw Problem(description: "cannot sync \(path): \(reason)")
        }
        close(descriptor)
    }

    /// The schema version of the relay's file that this build migrates to.
    public static var relayVersion: Int { Int(RelaySchema.migrations.last?.version ?? 0) }

    /// The closest directory at or above the one `path` would be in that exists.
    private static func nearestDirectory(above path: String) -> String {
        var directory = (path as NSString).deletingLastPathComponent
        while !directory.isEmpty, directory != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) { return directory }
            directory = (directory as NSString).deletingLastPathComponent
        }
        return directory.isEmpty ? "." : directory
    }
}
