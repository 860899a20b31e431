import Foundation

/// The package's executables of the build the running tests come from (`swift build
/// --build-tests` builds them before any test runs).
public enum BuiltProducts {
    /// The directory of the executables: the test binary's own, so tests built into another
    /// scratch path (`Scripts/sanitize`'s `.build/sanitize-thread/debug`) start that build's
    /// executables, sanitized as they are.
    public static let directory = Bundle.main.executableURL!.deletingLastPathComponent().path

    /// The path of the executable `name` (`pushgate`, `pushgate-relay`, `pushgate-host`).
    public static func path(_ name: String) -> String { directory + "/" + name }
}
