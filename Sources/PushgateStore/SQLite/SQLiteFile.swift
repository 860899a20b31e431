import CSQLite
import Foundation
import PushgateCore

/// A service's SQLite file seen from outside the running store: checked without being created
/// or changed (`--check-config` of the relay and the host).
public enum SQLiteFile {
    /// Why the file cannot serve.
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
