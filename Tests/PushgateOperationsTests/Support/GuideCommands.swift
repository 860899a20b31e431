/// The command lines of a Markdown document that run `pushgate`, `pushgate-relay` or
/// `pushgate-host`: lines of its ```` ```sh ```` blocks, and inline code spans elsewhere.
enum GuideCommands {
    static let binaries: Set<String> = ["pushgate", "pushgate-relay", "pushgate-host"]

    static func lines(inMarkdown text: String) -> [String] {
        var found: [String] = []
        var inShellBlock = false, inOtherBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if inShellBlock || inOtherBlock {
                    inShellBlock = false
                    inOtherBlock = false
                } else if line == "```sh" {
                    inShellBlock = true
                } else {
                    inOtherBlock = true
                }
            } else if inShellBlock {
                let command = String(line.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces)
                if runsPushgate(command, withArguments: false) { found.append(command) }
            } else if !inOtherBlock {
                for span in line.matches(of: #/`([^`]+)`/#) where runsPushgate(String(span.output.1), withArguments: true) {
                    found.append(String(span.output.1))
                }
            }
        }
        return found
    }

    /// Whether a simple command of `line` (split at `;`, `&&`, `||`, `|`) has a pushgate binary
    /// as its program once `sudo`, `env`, `exec` and `NAME=value` words are skipped. An inline span counts only
    /// `withArguments` (a bare `pushgate-relay` names the program, it runs nothing).
    static func runsPushgate(_ line: String, withArguments: Bool) -> Bool {
        line.split(separator: #/\s*(?:;|&&|\|\||\|)\s*/#).contains { segment in
            let words = segment.split(separator: " ")
                .drop { ["sudo", "env", "exec"].contains($0) || $0.contains(#/^[A-Za-z_][A-Za-z0-9_]*=/#) }
            guard let program = words.first, binaries.contains(String(program)) else { return false }
            return !withArguments || words.count > 1
        }
    }
}
