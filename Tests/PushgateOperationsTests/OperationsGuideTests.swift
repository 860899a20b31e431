import Foundation
import PushgateTesting
import PushgateTestSupport
import Testing

/// docs/operations.md: every command line in it that runs `pushgate`, `pushgate-relay` or
/// `pushgate-host` is run here, as written, against the built binaries: `sudo` dropped, and
/// `/etc/`, `/var/lib/` and `/var/backups/` moved into a temporary directory that stands for the
/// machine. A line the guide gains without a run here fails the test, and so does a run here
/// whose line the guide no longer has.
@Suite(.hangLimit(.minutes(1))) struct OperationsGuideTests {
    /// What each command line must print on standard output to pass (computed: a `Regex` is
    /// not `Sendable`).
    static var runs: [String: Regex<Substring>] { [
        "sudo env PUSHGATE_RELAY_DATABASE_PATH=/var/lib/pushgate-relay/relay.sqlite PUSHGATE_RELAY_APNS_P8_PATH=/etc/credstore/pushgate-relay.apns.p8 sh -c 'set -a; . /etc/pushgate/relay.env; exec pushgate-relay --check-config'":
            #/the configuration is valid/#,
        "sudo PUSHGATE_HOME=/var/lib/pushgate-host pushgate-host identity": #/^[A-Za-z0-9_-]{43}\n$/#,
        "pushgate-relay --version": #/^pushgate-relay \d+\.\d+\.\d+\nOpenSSL /#,
        "sudo PUSHGATE_RELAY_DATABASE_PATH=/var/lib/pushgate-relay/relay.sqlite pushgate-relay backup /var/backups/pushgate/relay.sqlite":
            #/^backed up .* \(\d+ pages\)\n$/#,
    ] }

    @Test func everyCommandLineOfTheGuideIsRunHere() throws {
        let lines = Set(GuideCommands.lines(inMarkdown: try Repository.text("docs/operations.md")))
        #expect(lines.subtracting(Self.runs.keys).isEmpty, "not run here: \(lines.subtracting(Self.runs.keys).sorted())")
        #expect(Set(Self.runs.keys).subtracting(lines).isEmpty, "no longer in the guide: \(Set(Self.runs.keys).subtracting(lines).sorted())")
    }

    /// A relay set up as the packaged unit runs it (relay.env as shipped plus a dry run, its
    /// database in the state directory), holding one binding; then each line of the guide.
    @Test func theGuidesCommandLinesWorkOnAPackagedLayout() async throws {
        let machine = try TemporaryDirectory.create("pushgate-operations")
        defer { try? FileManager.default.removeItem(at: machine) }
        for directory in ["etc/pushgate", "var/lib/pushgate-relay", "var/lib/pushgate-host", "var/backups/pushgate"] {
            try FileManager.default.createDirectory(at: machine.appendingPathComponent(directory), withIntermediateDirectories: true)
        }
        let relayEnv = try Repository.text("packaging/env/relay.env")
            + "PUSHGATE_RELAY_DRY_RUN=true\nPUSHGATE_RELAY_PORT=0\nPUSHGATE_RELAY_METRICS_LISTEN=off\n"
        try relayEnv.write(toFile: machine.path + "/etc/pushgate/relay.env", atomically: true, encoding: .utf8)
        // The unit's Environment= first, then its EnvironmentFile=, which wins.
        let unitEnvironment = ["PUSHGATE_RELAY_DATABASE_PATH": machine.path + "/var/lib/pushgate-relay/relay.sqlite"]
        let relay = try await ServerProcess.start("relay", executable: BuiltProducts.path("pushgate-relay"),
                                                  environment: unitEnvironment.merging(Self.assignments(relayEnv)) { $1 },
                                                  logFile: machine.path + "/relay.log")
        let token = String(repeating: "8f3a", count: 16)
        _ = try await Self.shell("pushgate identity new --out \(machine.path)/host.jwk", on: machine)
        let registered = try await Self.shell(
            "pushgate relay register --relay http://127.0.0.1:\(relay.port) --key \(machine.path)/host.jwk --token \(token)", on: machine)
        #expect(registered.stdout.hasPrefix("200 "), "\(registered)")

        for (line, output) in Self.runs.sorted(by: { $0.key < $1.key }) {
            let outcome = try await Self.shell(line, on: machine)
            #expect(outcome.status == 0 && outcome.stdout.contains(output), "\(line)\n\(outcome)")
        }
        // The backup is a database of its own that holds the binding.
        let backedUp = try await Self.shell(
            "pushgate-relay bindings --database-path \(machine.path)/var/backups/pushgate/relay.sqlite --token \(token)", on: machine)
        #expect(backedUp.status == 0 && backedUp.stdout.hasPrefix("alert "), "\(backedUp)")
        #expect(try await relay.stop() == 0)
    }

    /// Runs `line` with bash, the built binaries first on the path, `sudo` dropped and the
    /// machine's paths moved under `machine`.
    static func shell(_ line: String, on machine: URL) async throws -> ChildProcess.Outcome {
        var command = line.replacing(#/(^|; )sudo /#) { $0.output.1 }
        for prefix in ["/etc/", "/var/lib/", "/var/backups/"] {
            command = command.replacing(" " + prefix, with: " " + machine.path + prefix)
                .replacing("=" + prefix, with: "=" + machine.path + prefix)
        }
        let script = command
        return try await onOwnThread(within: 30, line) {
            try ChildProcess(executable: "/bin/bash", arguments: ["-c", script],
                             environment: ["PATH": BuiltProducts.directory + ":/usr/bin:/bin", "HOME": machine.path]).finish()
        }
    }

    /// The `NAME=value` lines of an environment file, as systemd's `EnvironmentFile=` reads them.
    static func assignments(_ text: String) -> [String: String] {
        Dictionary(text.split(separator: "\n").compactMap { line -> (String, String)? in
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { _, last in last })
    }
}
