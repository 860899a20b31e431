import Foundation

/// The package's debug executables (`swift build --build-tests` builds them before any test runs).
public enum BuiltProducts {
    /// The package root: this file lives in Sources/PushgateTesting/Process/.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The directory of the debug executables.
    public static var directory: String { packageRoot.appendingPathComponent(".build/debug").path }

    /// The path of the executable `name` (`pushgate`, `pushgate-relay`, `pushgate-host`).
    public static func path(_ name: String) -> String { directory + "/" + name }
}
