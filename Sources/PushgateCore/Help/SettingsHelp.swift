/// The settings part of an executable's `--help`: for each setting the names it goes by, then
/// its meaning and default indented below, a layout that reads the same in a terminal and in
/// the man page made from it.
public enum SettingsHelp {
    /// One setting as `--help` shows it.
    public struct Entry: Sendable {
        /// The environment variable and the other names (flag, `settings.json` key, aliases).
        public let names: [String]
        public let meaning: String
        public let defaultValue: String

        public init(names: [String], meaning: String, defaultValue: String) {
            self.names = names
            self.meaning = meaning
            self.defaultValue = defaultValue
        }
    }

    public static func render(_ entries: [Entry]) -> String {
        entries.map { "  \($0.names.joined(separator: ", "))\n      \($0.meaning)\n      default: \($0.defaultValue)\n" }.joined()
    }
}
