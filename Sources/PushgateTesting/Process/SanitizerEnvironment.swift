import Foundation

/// The sanitizer settings `Scripts/sanitize` gives a test process (docs/architecture.md,
/// "Sanitizers"). A child started with an environment of its own gets them too, so a sanitized
/// relay or host writes its reports where the script collects them, with the same suppressions
/// and the same preloaded library.
public enum SanitizerEnvironment {
    static let names: Set = ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS", "LD_PRELOAD"]

    /// `environment` plus the test process's sanitizer settings it does not set itself.
    public static func adding(to environment: [String: String]) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment.filter { names.contains($0.key) }
        return environment.merging(inherited) { own, _ in own }
    }
}
