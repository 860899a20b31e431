import Foundation
import PushgateCore
@testable import PushgateRelay
import PushgateTestSupport
import PushgateTesting
import Testing

/// The relay's one settings table: docs/relay.md lists exactly its rows, `--help` prints them,
/// and flags and variables are read through it.
@Suite(.hangLimit(.minutes(1))) struct SettingsTableTests {
    @Test func docsListExactlyTheTableRowsWithTheirFlagsAndDefaults() throws {
        let documented = try DocumentTable.rows(in: "docs/relay.md", under: "## Settings", columns: 3)
        let byVariable = Dictionary(documented.map { (DocumentTable.plain($0[0]), $0) }) { first, _ in first }
        #expect(documented.count == byVariable.count, "a variable is listed twice in docs/relay.md")
        let inCode = Set(RelaySetting.table.map(\.environment))
        #expect(inCode.subtracting(byVariable.keys).sorted() == [], "in RelaySetting.table, missing from docs/relay.md")
        #expect(Set(byVariable.keys).subtracting(inCode).sorted() == [], "in docs/relay.md, missing from RelaySetting.table")
        for row in RelaySetting.table {
            guard let cells = byVariable[row.environment] else { continue }
            #expect(DocumentTable.plain(cells[1]) == (row.flag ?? "–"), "\(row.environment): flag")
            #expect(DocumentTable.plain(cells[2]) == row.defaultValue, "\(row.environment): default")
        }
    }

    @Test func everyFlagAndVariableOfTheTableIsReadAndNoOtherFlag() throws {
        for row in RelaySetting.table {
            let environment = try SettingsSource(arguments: [], environment: [row.environment: "from-environment"])
            #expect(environment.value(row.name) == "from-environment", "\(row.environment)")
            guard let flag = row.flag else { continue }
            let arguments = row.isSwitch ? ["\(flag)=from-flag"] : [flag, "from-flag"]
            let both = try SettingsSource(arguments: arguments, environment: [row.environment: "from-environment"])
            #expect(both.value(row.name) == "from-flag" && both.unknownFlags.isEmpty, "\(flag)")
        }
        let error = #expect(throws: ConfigurationError.self) {
            try RelayConfiguration(arguments: ["--dry-run", "--no-such-setting", "1"], environment: [:])
        }
        #expect(error?.setting == "--no-such-setting")
        // The switches stand alone; a flag that is not one needs its value.
        #expect(try SettingsSource(arguments: ["--dry-run", "--trust-proxy"], environment: [:]).value("DRY_RUN") == "true")
        #expect(throws: ConfigurationError.self) { try SettingsSource(arguments: ["--port"], environment: [:]) }
    }

    @Test func anInvalidLogLevelStopsStartUp() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try RelayConfiguration(arguments: ["--dry-run"], environment: ["PUSHGATE_LOG_LEVEL": "loud"])
        }
        #expect(error?.setting == "PUSHGATE_LOG_LEVEL")
        #expect(try RelayConfiguration(arguments: ["--dry-run"], environment: ["PUSHGATE_LOG_LEVEL": "Warning"]).logLevel == .warning)
    }

    @Test func helpPrintsEveryRowAndExitsZero() async throws {
        for arguments in [["--help"], ["-h"], ["--port", "1", "--help"]] {
            let outcome = try await Self.relay(arguments)
            #expect(outcome.status == 0, "\(arguments)")
            #expect(outcome.stderr.isEmpty)
            for row in RelaySetting.table {
                #expect(outcome.stdout.contains(row.environment) && outcome.stdout.contains(row.defaultValue), "\(row.environment)")
                if let flag = row.flag { #expect(outcome.stdout.contains(flag)) }
            }
            for command in ["--check-config", "bindings --token", "backup FILE", "--version"] {
                #expect(outcome.stdout.contains("pushgate-relay \(command)"))
            }
        }
        for command in ["bindings", "backup"] {
            let usage = try await Self.relay([command, "--help"])
            #expect(usage.status == 0 && usage.stdout.hasPrefix("usage: pushgate-relay \(command) "))
        }
    }

    @Test func versionPrintsThePushgateVersionAndTheLinkedLibraries() async throws {
        let outcome = try await Self.relay(["--version"])
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "pushgate-relay \(PushgateVersion.current)")
        let libraries = Dictionary(lines.dropFirst().map { line in
            (String(line.split(separator: " ")[0]), String(line.split(separator: " ").dropFirst().joined(separator: " ")))
        }) { first, _ in first }
        #expect(Set(libraries.keys) == ["OpenSSL", "nghttp2", "libmicrohttpd", "libcurl", "SQLite", "libpq", "libsodium"])
        for (name, version) in libraries {
            #expect(version.first?.isNumber == true, "\(name) \(version)")
        }
    }

    /// Runs the built relay with `arguments` and no settings to its end.
    static func relay(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Outcome {
        try await onOwnThread(within: 30, "pushgate-relay \(arguments.joined(separator: " "))") {
            try ChildProcess(executable: RelayProcess.binary, arguments: arguments, environment: environment).finish()
        }
    }
}
