import Foundation

/// Creates the directory a database file lives in, readable by its owner only.
public enum DatabaseDirectory {
    /// A directory could not be created.
    public struct CreationError: Error, CustomStringConvertible, Sendable {
        /// The directory that could not be made.
        public let path: String
        /// The system's reason.
        public let reason: String
        public var description: String { "cannot create database directory \(path): \(reason)" }
    }

    /// Makes every missing directory above the file at `databasePath` with mode 0700.
    /// Nothing to do for `:memory:` or a file in the working directory.
    public static func prepare(for databasePath: String) throws {
        guard databasePath != SQLiteConnection.memoryPath else { return }
        let directory = (databasePath as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        var current = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            current += current.isEmpty || current.hasSuffix("/") ? String(component) : "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw CreationError(path: current, reason: String(cString: strerror(errno)))
            }
        }
    }
}
