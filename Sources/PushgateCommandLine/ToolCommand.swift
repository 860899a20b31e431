import Foundation
import PushgateCore

/// One top-level command of a command-line tool (`pushgate`, `pushgate-dev`): its name, its
/// usage lines and what it runs.
package struct ToolCommand {
    package let name: String
    /// Usage lines, each starting with the program's name and `<name>`.
    package let usage: String
    /// Runs the command on its arguments and returns the exit status.
    package let run: (inout ArgumentList) throws -> Int32

    package init(name: String, usage: String, run: @escaping (inout ArgumentList) throws -> Int32) {
        self.name = name
        self.usage = usage
        self.run = run
    }

    /// Dispatches `words` (the arguments after the program name) to the matching command
    /// and turns errors into messages on standard error and exit statuses 2 and 1.
    /// `--version` reports `program` and `libraries`; the overview points to `guide`.
    package static func main(_ words: [String], program: String, guide: String, libraries: [LinkedLibrary],
                             commands: [ToolCommand]) -> Int32 {
        let overview = "usage:\n" + commands.map { indented($0.usage) }.joined(separator: "\n")
            + "\n  \(program) --version\nsee \(guide)"
        guard let name = words.first, !["help", "--help", "-h"].contains(name) else {
            if words.isEmpty { printError(overview); return 2 }
            print(overview)
            return 0
        }
        if words == ["--version"] {
            print(PushgateVersion.report(program: program, libraries: libraries), terminator: "")
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            printError("\(program): unknown command \(name)\n\(overview)")
            return 2
        }
        // Only as the command's one argument: elsewhere the word may be an option's value.
        if words.count == 2, ["--help", "-h"].contains(words[1]) {
            print("usage:\n" + indented(command.usage))
            return 0
        }
        do {
            var arguments = try ArgumentList(words.dropFirst())
            return try command.run(&arguments)
        } catch let error as UsageError {
            printError("\(program) \(name): \(error.message)\nusage:\n" + indented(command.usage))
            return 2
        } catch let error as ToolFailure {
            printError("\(program) \(name): \(error.message)")
            return 1
        } catch {
            printError("\(program) \(name): \(error)")
            return 1
        }
    }

    private static func indented(_ usage: String) -> String {
        usage.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    /// Writes one line to standard error.
    package static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
