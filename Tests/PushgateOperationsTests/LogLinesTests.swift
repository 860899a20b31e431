import Foundation
import PushgateTestSupport
import Testing

/// docs/operations.md, "Logs": every `warning` and `error` message the relay and the host can
/// write is in the guide's table, so an operator who finds one in the journal finds what it
/// means. A message built with interpolation is found by its literal parts.
@Suite struct LogLinesTests {
    static let modules = ["PushgateRelay", "PushgateHost", "PushgateStore", "PushgateProviders", "PushgateHTTP"]

    @Test func everyWarningAndErrorMessageIsInTheGuide() throws {
        let guide = try Repository.text("docs/operations.md")
        var messages: [(file: String, message: String)] = []
        for module in Self.modules {
            let directory = Repository.root.appendingPathComponent("Sources/" + module)
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let source = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for match in source.matches(of: #/logger\.(?:warning|error)\("((?:[^"\\]|\\.)*)"/#) {
                    messages.append((module + "/" + file, String(match.output.1)))
                }
            }
        }
        #expect(messages.count >= 50, "\(messages.count) messages found")
        for (file, message) in messages {
            // Interpolations, one level of parentheses deep, and one left open where the
            // literal ends inside it (`\(list.joined(separator: ", "))`).
            let parts = message.replacing(#/\\\((?:[^()]|\([^()]*\))*\)|\\\(.*$/#, with: "\u{0}")
                .split(separator: "\u{0}").map { $0.trimmingCharacters(in: .whitespaces) }
            let missing = parts.filter { $0.count >= 8 && !guide.contains($0) }
            #expect(missing.isEmpty, "\(file): \"\(message)\" is not in docs/operations.md, \"Logs\"")
        }
    }
}
