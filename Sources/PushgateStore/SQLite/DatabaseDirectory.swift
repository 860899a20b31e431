import Foundation

/// Creates the directory a database file lives in, readable by its owner only.
public enum DatabaseDirectory {
    /// A directory could not be created.
    public struct CreationError: Error, CustomStringConvertible, Sendable {
        /// The directory that could not be made or synced.
        public let path: String
        /// The system's reason.
        public let reason: String
        public var description: String { "cannot create database directory \(path): \(reason)" }
    }

    /// Makes every missing directory above the file at `databasePath` with mode 0700, and syncs
    /// each new one into its parent so it survives a power cut along with the data written in it.
    /// Nothing to do for `:memory:` or a file in the working directory.
    public static func prepare(for databasePath: String) throws {
        guard databasePath != SQLiteConnection.memoryPath else { return }
        let directory = (databasePath as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        var parent = directory.hasPrefix("/") ? "/" : "."
        for component in directory.split(separator: "/") {
            let current = parent == "." ? String(component) : (parent as NSString).appendingPathComponent(String(component))
            if mkdir(current, 0o700) == 0 {
                try syncDirectory(parent)
            } else if errno != EEXIST {
                throw CreationError(path: current, reason: String(cString: strerror(errno)))
            }
            parent = current
        }
    }

    private static func syncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw CreationError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw CreationError(path: path, reason: String(cString: strerror(errno))) }
    }
}
