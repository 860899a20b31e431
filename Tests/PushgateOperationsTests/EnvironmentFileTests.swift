import Foundation
import PushgateTestSupport
import Testing

/// The packages' /etc/pushgate/*.env (packaging/env/): every setting the docs list is there,
/// commented out, and nothing else is, so the file an operator edits names every setting and
/// the file as shipped changes nothing.
@Suite struct EnvironmentFileTests {
    @Test func relayEnvironmentFileListsEveryRelaySetting() throws {
        let documented = try Self.relaySettings()
        #expect(documented.count >= 50, "\(documented.count) settings found in docs/relay.md")
        try Self.expect(file: "packaging/env/relay.env", lists: documented, documentedIn: ["docs/relay.md"])
    }

    @Test func hostEnvironmentFileListsEveryHostSetting() throws {
        let documented = try Self.hostSettings()
        #expect(documented.count >= 30, "\(documented.count) settings found in docs/host.md and docs/hapi.md")
        try Self.expect(file: "packaging/env/host.env", lists: documented, documentedIn: ["docs/host.md", "docs/hapi.md"])
    }

    /// `file` holds only comments and blank lines; its `#NAME=…` lines name exactly `settings`,
    /// plus retired names the docs still mention.
    static func expect(file: String, lists settings: Set<String>, documentedIn docs: [String]) throws {
        let lines = try Repository.text(file).split(separator: "\n")
        let active = lines.filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(active.isEmpty, "\(file) sets \(active)")
        let listed = Set(lines.compactMap { line in line.firstMatch(of: #/^#([A-Z][A-Z0-9_]*)=/#).map { String($0.output.1) } })
        #expect(settings.subtracting(listed).isEmpty, "\(file) lacks \(settings.subtracting(listed).sorted())")
        let docText = try docs.map(Repository.text).joined()
        let unknown = listed.subtracting(settings).filter { name in
            !docText.contains(name.replacing(#/^PUSHGATE_RELAY_/#, with: ""))
        }
        #expect(unknown.isEmpty, "\(file) names settings no doc mentions: \(unknown.sorted())")
    }

    /// docs/relay.md's settings table, as environment variables.
    static func relaySettings() throws -> Set<String> {
        let names = try Self.tableRows(in: "docs/relay.md", header: "| environment | flag | default | meaning |").flatMap { cells in
            cells[0].matches(of: #/`([A-Z][A-Z0-9_]+)`/#).map { String($0.output.1) }
        }
        return Set(names.map { $0.hasPrefix("PUSHGATE_") ? $0 : "PUSHGATE_RELAY_" + $0 })
    }

    /// docs/host.md's settings table and docs/hapi.md's transports table, each row's first
    /// environment variable (its aliases are read too, but need no line of their own).
    static func hostSettings() throws -> Set<String> {
        let host = try Self.tableRows(in: "docs/host.md", header: "| environment | settings.json key | default | meaning |")
            .compactMap { $0[0].firstMatch(of: #/`(PUSHGATE_[A-Z0-9_]+)`/#).map { String($0.output.1) } }
        let hapi = try Self.tableRows(in: "docs/hapi.md", header: "| settings.json key | env | hapi alias | values | default |")
            .compactMap { $0[1].firstMatch(of: #/`(PUSHGATE_[A-Z0-9_]+)`/#).map { String($0.output.1) } }
        return Set(host + hapi)
    }

    /// The cells of each row of the table under `header` in `path`.
    static func tableRows(in path: String, header: String) throws -> [[String]] {
        let text = try Repository.text(path)
        guard let start = text.range(of: header + "\n") else {
            Issue.record("\(path) has no table headed \(header)")
            return []
        }
        return text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .dropFirst()  // the |---| line
            .prefix { $0.hasPrefix("|") }
            .map { row in row.dropFirst().dropLast().components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) } }
    }
}
