/// The version of every Pushgate executable, which `--version` prints.
///
/// - Important: a constant in the code, not read from git, so a build from a tarball without
///   `.git` knows it too. The commit that makes a release sets it, and nothing else does
///   (docs/architecture.md "Versions").
public enum PushgateVersion {
    public static let current = "0.1.0"

    /// `--version`'s text: `program` and the version on the first line, then each library the
    /// process is linked with and the version that library reports at run time.
    public static func report(program: String, libraries: [LinkedLibrary]) -> String {
        (["\(program) \(current)"] + libraries.map { "\($0.name) \($0.version)" }).joined(separator: "\n") + "\n"
    }
}
