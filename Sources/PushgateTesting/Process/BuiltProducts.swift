import Foundation

/// The package's debug executables (`swift build --build-tests` builds them before any test runs).
public enum BuiltProducts {
    /// The package root: this file lives in Sources/PushgateTesting/Process/.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of the executable `name` (`pushgate`, `pushgate-relay`, `pushgate-host`).
    public static func path(_ name: String) -> String {
        packageRoot.appendingPathComponent(".build/debug").appendingPathComponent(name).path
    }
}
