import Foundation
import PushgateCore
@testable import PushgateHost
import PushgateTestSupport
import PushgateTesting
import Testing

/// The host's one settings table: docs/host.md lists exactly its rows, `--help` prints them.
@Suite(.hangLimit(.minutes(1))) struct SettingsTableTests {
    @Test func docsListExactlyTheTableRowsWithTheirKeysAliasesAndDefaults() throws {
        let documented = try DocumentTable.rows(in: "docs/host.md", under: "## Home and settings", columns: 3)
        let byVariable = Dictionary(documented.compactMap { cells in
            DocumentTable.codeSpans(cells[0]).first.map { ($0, cells) }
        }) { first, _ in first }
        #expect(documented.count == byVariable.count, "a row of docs/host.md has no variable, or one is listed twice")
        let inCode = Set(SettingName.table.map(\.environment))
        #expect(inCode.subtracting(byVariable.keys).sorted() == [], "in SettingName.table, missing from docs/host.md")
        #expect(Set(byVariable.keys).subtracting(inCode).sorted() == [], "in docs/host.md, missing from SettingName.table")
        for row in SettingName.table {
            guard let cells = byVariable[row.environment] else { continue }
            #expect(Array(DocumentTable.codeSpans(cells[0]).dropFirst()) == row.aliases, "\(row.environment): aliases")
            #expect(DocumentTable.codeSpans(cells[1]) == [row.key].compactMap { $0 } + row.legacyKeys, "\(row.environment): keys")
            #expect(DocumentTable.plain(cells[2]) == row.defaultValue, "\(row.environment): default")
        }
    }

    @Test func helpPrintsEveryRowAndVersionTheLinkedLibraries() async throws {
        let help = try await Self.host(["--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        for row in SettingName.table {
            #expect(help.stdout.contains(row.environment) && help.stdout.contains(row.defaultValue), "\(row.environment)")
            if let key = row.key { #expect(help.stdout.contains("settings.json \(key)")) }
        }
        #expect(help.stdout.contains("pushgate-host --check-config"))
        let version = try await Self.host(["--version"])
        #expect(version.status == 0)
        let lines = version.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "pushgate-host \(PushgateVersion.current)")
        #expect(Set(lines.dropFirst().map { String($0.split(separator: " ")[0]) })
                == ["OpenSSL", "nghttp2", "libmicrohttpd", "libcurl", "SQLite", "libpq", "libsodium"])
        let wrong = try await Self.host(["--frobnicate"])
        #expect(wrong.status == 2 && wrong.stderr.contains("usage: pushgate-host"))
    }

    /// Runs the built host with `arguments` to its end, its home a fresh directory.
    static func host(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Outcome {
        let environment = environment["PUSHGATE_HOME"] == nil ? TemporaryHome().environment(environment) : environment
        return try await onOwnThread(within: 30, "pushgate-host \(arguments.joined(separator: " "))") {
            try ChildProcess(executable: ExecutableTests.binary, arguments: arguments, environment: environment).finish()
        }
    }
}
