import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// `pushgate relay …` against the built `pushgate-relay --dry-run` as a child process.
@Suite struct RelayCommandTests {
    /// A dry-run relay on a free loopback port, its bindings and deliveries in `directory`.
    struct DryRunRelay {
        let process: ChildProcess
        let url: String
        let deliveries: String

        static func start(in directory: URL) async throws -> DryRunRelay {
            let deliveries = directory.appendingPathComponent("deliveries.jsonl").path
            let process = try ChildProcess(executable: PushgateTool.relayExecutable, arguments: ["--dry-run"], environment: [
                "PUSHGATE_RELAY_PORT": "0", "PUSHGATE_RELAY_METRICS_LISTEN": "off",
                "PUSHGATE_RELAY_DATABASE_PATH": directory.appendingPathComponent("relay.sqlite").path,
                "PUSHGATE_RELAY_DRY_RUN_LOG": deliveries,
                "PUSHGATE_LOG_LEVEL": "warning",
            ])
            let line = try await onOwnThread { process.readLine { $0.hasPrefix("listening ") } }
            let port = try #require(PushgateTool.port(ofListeningLine: line))
            return DryRunRelay(process: process, url: "http://127.0.0.1:\(port)", deliveries: deliveries)
        }

        /// SIGTERM, then the exit status.
        func stop() async throws -> Int32 {
            process.signal(SIGTERM)
            return try await onOwnThread { process.finish() }.status
        }
    }

    static func newIdentity(_ directory: URL, _ name: String) async throws -> String {
        let path = directory.appendingPathComponent(name).path
        #expect(try await PushgateTool.runOnOwnThread(["identity", "new", "--out", path]).status == 0)
        return path
    }

    /// The JSON after the status of a `STATUS JSON` line.
    static func answer(_ outcome: PushgateTool.Outcome, status: Int) throws -> JSONValue {
        let prefix = "\(status) "
        #expect(outcome.stdout.hasPrefix(prefix) && outcome.stdout.hasSuffix("\n"))
        return try JSONValue.parse(String(outcome.stdout.dropFirst(prefix.count).dropLast()))
    }

    @Test func registerSendAndAReplayedResend() async throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let relay = try await DryRunRelay.start(in: directory)
        let hostA = try await Self.newIdentity(directory, "a.jwk")
        let hostB = try await Self.newIdentity(directory, "b.jwk")
        let own = Hex.encode(SecureRandom.bytes(32)), foreign = Hex.encode(SecureRandom.bytes(32))

        for (key, token) in [(hostA, own), (hostB, foreign)] {
            let registered = try await PushgateTool.runOnOwnThread(["relay", "register", "--relay", relay.url, "--key", key, "--token", token])
            #expect(registered.status == 0)
            #expect(registered.stdout == "200 {\"ok\":true}\n")
        }

        let saved = directory.appendingPathComponent("send.json").path
        let sent = try await PushgateTool.runOnOwnThread([
            "relay", "send", "--relay", relay.url, "--key", hostA, "--tokens", "\(own),\(foreign)", "--title", "Build finished",
            "--body", "All tests passed", "--badge", "2", "--collapse-id", "session-s1", "--data", #"{"sessionId":"s1"}"#,
            "--save-request", saved,
        ])
        #expect(sent.status == 0)
        #expect(try Self.answer(sent, status: 200) == JSONValue.parse(
            #"{"results":[{"token":"\#(own)","ok":true},{"token":"\#(foreign)","ok":false,"reason":"not_bound","retryable":true}]}"#))

        let request = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: saved))))
        #expect(request["title"] == .string("Build finished"))
        #expect(request["sig"]?.stringValue?.utf8.count == 86)
        #expect(try FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? Int == 0o600)

        let replayed = try await PushgateTool.runOnOwnThread(["relay", "resend", "--relay", relay.url, "--endpoint", "send", "--request", saved])
        #expect(replayed.status == 1)
        #expect(replayed.stdout == "401 {\"error\":\"replay\"}\n")

        // Only the own token reached the (dry-run) provider, once: the replay sent nothing.
        let deliveries = try String(contentsOfFile: relay.deliveries, encoding: .utf8).split(separator: "\n")
        #expect(deliveries.count == 1)
        let delivery = try JSONValue.parse(String(try #require(deliveries.first)))
        #expect(delivery["token"] == .string(Redact.token(own)))
        #expect(delivery["payload"]?["aps"]?["alert"]?["title"] == .string("Build finished"))
        #expect(delivery["payload"]?["sessionId"] == .string("s1"))

        let unregistered = try await PushgateTool.runOnOwnThread(["relay", "unregister", "--relay", relay.url, "--key", hostA, "--token", own])
        #expect(unregistered.stdout == "200 {\"ok\":true}\n")
        let afterwards = try await PushgateTool.runOnOwnThread(["relay", "send", "--relay", relay.url, "--key", hostA, "--tokens", own, "--title", "Again"])
        #expect(try Self.answer(afterwards, status: 200) == JSONValue.parse(#"{"results":[{"token":"\#(own)","ok":false,"reason":"not_bound","retryable":true}]}"#))

        #expect(try await relay.stop() == 0)
    }

    @Test func refusalsExitWithOne() async throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let relay = try await DryRunRelay.start(in: directory)
        let host = try await Self.newIdentity(directory, "host.jwk")

        let shortToken = try await PushgateTool.runOnOwnThread(["relay", "register", "--relay", relay.url, "--key", host, "--token", "abcd"])
        #expect(shortToken.status == 1)
        #expect(shortToken.stdout == "400 {\"error\":\"invalid_request\"}\n")
        #expect(try await relay.stop() == 0)

        // Nothing listens any more: a transport failure, reported on standard error.
        let unreachable = try await PushgateTool.runOnOwnThread(
            ["relay", "register", "--relay", relay.url, "--key", host, "--token", Hex.encode(SecureRandom.bytes(32))])
        #expect(unreachable.status == 1)
        #expect(unreachable.stdout.isEmpty)
        #expect(unreachable.stderr.hasPrefix("pushgate relay: "))
    }

    @Test(arguments: [
        (["relay", "send", "--relay", "http://127.0.0.1:1", "--key", "k.jwk", "--tokens", "ab"], "--title is required"),
        (["relay", "send", "--relay", "http://127.0.0.1:1", "--key", "k.jwk", "--tokens", "ab", "--title", "t", "--badge", "two"],
         "--badge must be an integer"),
        (["relay", "register", "--relay", "http://127.0.0.1:1", "--key", "k.jwk", "--token", "ab", "--kind", "voip"],
         "--kind must be alert or liveactivity"),
        (["relay", "publish", "--relay", "http://127.0.0.1:1"], "expected register, unregister, send or resend"),
        (["relay", "publish"], "expected register, unregister, send or resend"),
    ])
    func usageErrorsExitWithTwo(arguments: [String], message: String) async throws {
        let outcome = try await PushgateTool.runOnOwnThread(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains(message))
        #expect(outcome.stderr.contains("pushgate relay send --relay URL"))
    }
}
