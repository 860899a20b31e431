import Foundation

/// What `Scripts/sanitize` tells the tests it runs (docs/architecture.md, "Sanitizers"): a
/// sanitized build is several times slower, and the address sanitizer keeps freed memory in
/// quarantine, so a time limit stretches and a bound on resident memory says nothing there.
public enum SanitizedRun {
    /// `PUSHGATE_TEST_TIME_SCALE`: how many times longer a test may run; 1 outside a sanitizer.
    public static let timeScale: Int = ProcessInfo.processInfo.environment["PUSHGATE_TEST_TIME_SCALE"]
        .flatMap(Int.init).map { max(1, $0) } ?? 1

    /// Whether this is `Scripts/sanitize address`: freed blocks stay resident in its quarantine.
    public static let keepsFreedMemory = ProcessInfo.processInfo.environment["PUSHGATE_SANITIZER"] == "address"
}
