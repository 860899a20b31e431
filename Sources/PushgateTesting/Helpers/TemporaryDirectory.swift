import Foundation

/// A fresh directory under the system temporary directory for one test's files, removed when
/// released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "pushgate-tests") throws {
        path = try Self.create(prefix).path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// A fresh directory `<prefix>-<UUID>` that the caller removes (it outlives this call).
    public static func create(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
