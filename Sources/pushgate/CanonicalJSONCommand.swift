import PushgateCommandLine
import PushgateCore

/// `pushgate canonical-json`: canonical JSON (protocol/hapi-push.md §2) of a file or standard input.
enum CanonicalJSONCommand {
    static let usage = "pushgate canonical-json [FILE]"

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let path = arguments.nextPositional()
        try arguments.finish()
        let bytes = try ToolFile.read(path)
        do {
            print(try JSONValue.parse(bytes).canonicalized())
        } catch {
            throw ToolFailure("\(path ?? "standard input"): \(error)")
        }
        return 0
    }
}
