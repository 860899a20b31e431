import Foundation
import PushgateTesting
import Testing
import PushgateCore
import PushgateTestSupport

/// `pushgate gateway key|challenge|register|send` as a child process against a running relay
/// with the gateway on: the Orca-compatible host client, its §2.9 checks, and the banner the
/// fake APNs receives.
@Suite(.hangLimit(.minutes(1))) struct GatewayToolTests {
    static let binary = BuiltProducts.path("pushgate")

    /// Runs the tool to completion on its own thread: exit status, standard output, standard error.
    static func tool(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let output = out.fileHandleForReading.readDataToEndOfFile()
            let errors = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
        }
    }

    @Test func handshakeRegisterAndThreeEventsMakeOneBanner() async throws {
        // The tool judges challenges by the real clock, so the relay's manual clock starts there.
        let harness = try await GatewayHarness(startMs: SystemClock().nowMilliseconds)
        let keyFile = harness.directory.appendingPathComponent("host.key").path
        let sessionFile = harness.directory.appendingPathComponent("host.session").path
        let key = try await Self.tool(["gateway", "key", "--out", keyFile])
        #expect(key.status == 0)
        let summary = try JSONValue.parse(key.out.trimmingCharacters(in: .newlines))
        let fingerprint = try #require(summary["hostFingerprint"]?.stringValue)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let common = ["--gateway", "http://127.0.0.1:\(harness.port)", "--origin", GatewayHarness.origin, "--key", keyFile,
                      "--session", sessionFile]
        let challenge = try await Self.tool(["gateway", "challenge"] + common)
        #expect(challenge.status == 0, "\(challenge.err)")
        #expect(challenge.out.hasPrefix("200 ") && challenge.out.contains(#""hostFingerprint":"\#(fingerprint)""#))
        let session = try String(contentsOfFile: sessionFile, encoding: .utf8)
        #expect(session.utf8.count == 43 && !challenge.out.contains(session), "the token goes to the file, not the output")

        let token = Hex.encode(SecureRandom.bytes(32))
        let register = try await Self.tool(["gateway", "register"] + common + ["--device-id", "phone-1", "--token", token, "--env", "sandbox"])
        #expect(register.status == 0, "\(register.err)")
        let id = try #require(try JSONValue.parse(String(register.out.dropFirst(4)))["registrationId"]?.stringValue)
        for (index, title) in ["Agent 1 needs input", "Agent 2 needs input", "Agent 3 needs input"].enumerated() {
            let send = try await Self.tool(["gateway", "send"] + common + [
                "--registrations", id, "--title", title, "--body", "Waiting", "--notification-id", "note-\(index)", "--seq", "\(index)",
            ])
            #expect(send.out == "200 {\"results\":[{\"registrationId\":\"\(id)\",\"status\":\"queued\"}]}\n", "\(send.err)")
        }
        #expect(harness.gateway.counter("session_issued") == 1, "the saved session served every request")
        await harness.advance(byMs: 3_000)
        let banners = harness.fake.requests
        #expect(banners.count == 1)
        #expect(banners.first?.deviceToken == token)
        #expect(banners.first?.payload?["aps"]?["alert"] == ["title": "Orca", "body": "3 agents need attention"])

        // A stale saved session: one 401, one new handshake, then the request goes through.
        try HostProof.newSessionToken().write(toFile: sessionFile, atomically: false, encoding: .utf8)
        let retried = try await Self.tool(["gateway", "send"] + common + ["--registrations", id, "--title", "Again"])
        #expect(retried.status == 0 && harness.gateway.counter("session_issued") == 2)
        await harness.stop()
    }

    @Test func hostChecksRefuseToAnswer() async throws {
        let now = SystemClock().nowMilliseconds
        let harness = try await GatewayHarness(startMs: now)
        let keyFile = harness.directory.appendingPathComponent("host.key").path
        _ = try await Self.tool(["gateway", "key", "--out", keyFile])
        let gateway = ["--gateway", "http://127.0.0.1:\(harness.port)", "--key", keyFile]
        // A host configured for another origin refuses the relay's challenge (check 16).
        let otherOrigin = try await Self.tool(["gateway", "challenge"] + gateway + ["--origin", "https://other.pushgate.test"])
        #expect(otherOrigin.status == 1 && otherOrigin.out.isEmpty)
        #expect(otherOrigin.err.contains("failed the host check gatewayOrigin; no proof was sent"))
        // With the relay's clock a day behind, its challenges look long expired (check 11).
        harness.clock.set(milliseconds: now - 86_400_000)
        let expired = try await Self.tool(["gateway", "challenge"] + gateway + ["--origin", GatewayHarness.origin])
        #expect(expired.status == 1, "stdout: \(expired.out) stderr: \(expired.err)")
        #expect(expired.err.contains("failed the host check not-expired; no proof was sent"), "stderr: \(expired.err)")
        #expect(try harness.count("SELECT count(*) FROM push_challenges") == 2)
        #expect(harness.gateway.counter("session_issued") == 0 && harness.gateway.counter("session_rejected") == 0, "no proof sent")
        let usage = try await Self.tool(["gateway", "send"] + gateway + ["--origin", "https://push.example.org/"])
        #expect(usage.status == 2)
        await harness.stop()
    }
}
