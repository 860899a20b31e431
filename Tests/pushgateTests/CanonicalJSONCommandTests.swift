import Foundation
import PushgateCore
import PushgateTesting
import Testing

@Suite struct CanonicalJSONCommandTests {
    @Test func canonicalizesEveryVectorFromAFileAndFromStandardInput() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let vectors = try JSONValue.parse(Array(try Data(contentsOf: PushgateTool.fixture("vectors/canonical-json.json"))))
        for entry in try #require(vectors["cases"]?.arrayValue) {
            let input = try #require(entry["input"]).serialized()
            let expected = try #require(entry["canonical"]?.stringValue) + "\n"
            let file = directory.appendingPathComponent("input.json")
            try Data(input.utf8).write(to: file)
            #expect(try PushgateTool.run(["canonical-json", file.path]).stdout == expected)
            let piped = try PushgateTool.run(["canonical-json"], input: input)
            #expect(piped.status == 0)
            #expect(piped.stdout == expected)
        }
    }

    @Test func refusesInvalidJSON() throws {
        let outcome = try PushgateTool.run(["canonical-json"], input: #"{"a":1,"a":2}"#)
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("duplicate object key"))
        #expect(try PushgateTool.run(["canonical-json", "/nonexistent/input.json"]).status == 1)
    }

    @Test func dispatcherUsage() throws {
        #expect(try PushgateTool.run([]).status == 2)
        #expect(try PushgateTool.run(["frobnicate"]).status == 2)
        #expect(try PushgateTool.run(["canonical-json", "a", "b"]).status == 2)
        let help = try PushgateTool.run(["help"])
        #expect(help.status == 0)
        for command in ["identity new", "identity show", "sign", "verify", "envelope seal", "envelope open", "canonical-json"] {
            #expect(help.stdout.contains("pushgate \(command)"))
        }
    }
}
