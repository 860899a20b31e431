import Foundation
import Testing
import PushgateCore

/// Reads test vectors from the repository's `Fixtures/` directory.
enum JSONFixtures {
    /// The package root: this file lives in Tests/PushgateCoreTests/.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The parsed JSON of `Fixtures/<path>`.
    static func load(_ path: String) throws -> JSONValue {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(path))
        return try JSONValue.parse(Array(data))
    }

    /// The `cases` array of a vector file.
    static func cases(_ path: String) throws -> [JSONValue] {
        try #require(try load(path)["cases"]?.arrayValue)
    }
}
