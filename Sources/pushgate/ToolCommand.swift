import Foundation
import PushgateCore
import PushgateHTTP
import PushgateStore

/// One top-level command of the tool: its name, its usage lines and what it runs.
struct ToolCommand {
    let name: String
    /// Usage lines, each starting with `pushgate <name>`.
    let usage: String
    /// Runs the command on its arguments and returns the exit status.
    let run: (inout ArgumentList) throws -> Int32

    /// Dispatches `words` (the arguments after the program name) to the matching command
    /// and turns errors into messages on standard error and exit statuses 2 and 1.
    static func main(_ words: [String], commands: [ToolCommand]) -> Int32 {
        let overview = "usage:\n" + commands.map { indented($0.usage) }.joined(separator: "\n")
            + "\n  pushgate --version\nsee docs/tool.md"
        guard let name = words.first, !["help", "--help", "-h"].contains(name) else {
            if words.isEmpty { printError(overview); return 2 }
            print(overview)
            return 0
        }
        if words == ["--version"] {
            print(PushgateVersion.report(program: "pushgate", libraries: LinkedLibrary.core + LinkedLibrary.http + LinkedLibrary.store),
                  terminator: "")
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            printError("pushgate: unknown command \(name)\n\(overview)")
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
            printError("pushgate \(name): \(error.message)\nusage:\n" + indented(command.usage))
            return 2
        } catch let error as ToolFailure {
            printError("pushgate \(name): \(error.message)")
            return 1
        } catch {
            printError("pushgate \(name): \(error)")
            return 1
        }
    }

    private static func indented(_ usage: String) -> String {
        usage.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    /// Writes one line to standard error.
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
