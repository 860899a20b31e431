import Foundation
import PushgateCore
import PushgateTesting
import Testing

@Suite struct IdentityCommandTests {
    @Test func newWritesAPrivateJWKWithMode0600AndPrintsTheServerId() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("host.jwk").path
        let created = try PushgateTool.run(["identity", "new", "--out", keyPath])
        #expect(created.status == 0)
        let serverId = created.stdout.trimmingCharacters(in: .newlines)
        #expect(created.stdout == serverId + "\n")
        #expect(serverId.utf8.count == 43)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let jwk = try #require(try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: keyPath))))["d"])
        #expect(jwk.stringValue != nil)

        let shown = try PushgateTool.run(["identity", "show", "--key", keyPath])
        #expect(shown.status == 0)
        let summary = try JSONValue.parse(shown.stdout.trimmingCharacters(in: .newlines))
        #expect(summary.objectValue?.keys == ["serverId", "publicJwk"])
        #expect(summary["serverId"]?.stringValue == serverId)
        #expect(summary["publicJwk"]?["d"] == nil)
        #expect(shown.stdout == summary.serialized() + "\n")

        // A public JWK file shows the same identity.
        let publicPath = directory.appendingPathComponent("host.pub.jwk").path
        try Data(try #require(summary["publicJwk"]).serializedBytes()).write(to: URL(fileURLWithPath: publicPath))
        #expect(try PushgateTool.run(["identity", "show", "--key", publicPath]).stdout == shown.stdout)
    }

    @Test func newNeverReplacesAnExistingFile() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("host.jwk").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: keyPath))
        let outcome = try PushgateTool.run(["identity", "new", "--out", keyPath])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(try String(contentsOfFile: keyPath, encoding: .utf8) == "keep")
    }

    @Test func showRefusesWhatIsNotAJWK() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.jwk").path
        try Data(#"{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try PushgateTool.run(["identity", "show", "--key", path]).status == 1)
        #expect(try PushgateTool.run(["identity", "show", "--key", directory.appendingPathComponent("missing").path]).status == 1)
    }

    @Test(arguments: [
        ["identity"], ["identity", "old"], ["identity", "new"], ["identity", "show"],
        ["identity", "new", "--out"], ["identity", "new", "--out", "a", "--out", "b"],
        ["identity", "show", "--key", "k", "--extra", "x"], ["identity", "show", "--key", "k", "stray"],
    ])
    func usageErrorsExitWithStatus2(arguments: [String]) throws {
        let outcome = try PushgateTool.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("usage:"))
    }
}
