import Foundation
import PushgateCore
import PushgateTesting
import Testing

@Suite struct SignVerifyCommandTests {
    /// A new identity in a temporary directory: the private and public JWK paths.
    static func identity(in directory: URL) throws -> (privatePath: String, publicPath: String) {
        let privatePath = directory.appendingPathComponent("host.jwk").path
        #expect(try PushgateTool.run(["identity", "new", "--out", privatePath]).status == 0)
        let shown = try PushgateTool.run(["identity", "show", "--key", privatePath])
        let publicJwk = try #require(try JSONValue.parse(shown.stdout.trimmingCharacters(in: .newlines))["publicJwk"])
        let publicPath = directory.appendingPathComponent("host.pub.jwk").path
        try Data(publicJwk.serializedBytes()).write(to: URL(fileURLWithPath: publicPath))
        return (privatePath, publicPath)
    }

    @Test func signsAndVerifies() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (privatePath, publicPath) = try Self.identity(in: directory)
        let message = "1764669600000.aaaa.ios"
        let signed = try PushgateTool.run(["sign", "--key", privatePath, "--message", message])
        #expect(signed.status == 0)
        let signature = signed.stdout.trimmingCharacters(in: .newlines)
        #expect(signed.stdout == signature + "\n")
        #expect(signature.utf8.count == 86)

        let valid = try PushgateTool.run(["verify", "--jwk", publicPath, "--message", message, "--sig", signature])
        #expect(valid.status == 0)
        #expect(valid.stdout == "valid\n")
        let viaPrivate = try PushgateTool.run(["verify", "--jwk", privatePath, "--message", message, "--sig", signature])
        #expect(viaPrivate.stdout == "valid\n")

        let tampered = try PushgateTool.run(["verify", "--jwk", publicPath, "--message", message + "x", "--sig", signature])
        #expect(tampered.status == 1)
        #expect(tampered.stdout == "invalid\n")
    }

    @Test func verifiesTheSignedMessageVectors() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let identities = try JSONValue.parse(Array(try Data(contentsOf: PushgateTool.fixture("vectors/p256-identities.json"))))
        let vectors = try JSONValue.parse(Array(try Data(contentsOf: PushgateTool.fixture("vectors/signed-messages.json"))))
        let signer = try #require(vectors["signer"]?.stringValue)
        let jwkPath = directory.appendingPathComponent("signer.jwk").path
        try Data(try #require(identities[signer]?["publicJwk"]).serializedBytes()).write(to: URL(fileURLWithPath: jwkPath))
        let entry = try #require(vectors["cases"]?.arrayValue?.last)
        let message = try #require(entry["message"]?.stringValue)
        for signature in try #require(entry["valid"]?.arrayValue).compactMap(\.stringValue) {
            let outcome = try PushgateTool.run(["verify", "--jwk", jwkPath, "--message", message, "--sig", signature])
            #expect(outcome.stdout == "valid\n")
        }
        for variant in ["der_encoded", "other_key"] {
            let signature = try #require(entry["invalid"]?[variant]?.stringValue)
            let outcome = try PushgateTool.run(["verify", "--jwk", jwkPath, "--message", message, "--sig", signature])
            #expect(outcome.status == 1, "\(variant)")
            #expect(outcome.stdout == "invalid\n")
        }
    }

    @Test func malformedKeysAndSignaturesAreInvalid() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (privatePath, publicPath) = try Self.identity(in: directory)
        let signature = try PushgateTool.run(["sign", "--key", privatePath, "--message", "m"]).stdout
            .trimmingCharacters(in: .newlines)
        let badKey = directory.appendingPathComponent("bad.jwk").path
        try Data(#"{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}"#.utf8).write(to: URL(fileURLWithPath: badKey))
        let standard = signature.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        for (jwk, sig) in [(publicPath, signature + "=="), (publicPath, String(signature.dropLast())), (publicPath, "!"),
                           (badKey, signature), (directory.appendingPathComponent("missing").path, signature)]
            + (standard == signature ? [] : [(publicPath, standard)]) {
            let outcome = try PushgateTool.run(["verify", "--jwk", jwk, "--message", "m", "--sig", sig])
            #expect(outcome.status == 1)
            #expect(outcome.stdout == "invalid\n")
            #expect(!outcome.stderr.isEmpty)
        }
    }

    @Test func signNeedsAPrivateKey() throws {
        let directory = try TemporaryDirectory.create("pushgate-tool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, publicPath) = try Self.identity(in: directory)
        let outcome = try PushgateTool.run(["sign", "--key", publicPath, "--message", "m"])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
    }

    @Test(arguments: [
        ["sign", "--key", "k"], ["sign", "--message", "m"], ["verify", "--jwk", "k", "--message", "m"],
        ["verify", "--jwk", "k", "--sig", "s"], ["sign", "--key", "k", "--message", "m", "extra"],
    ])
    func usageErrorsExitWithStatus2(arguments: [String]) throws {
        let outcome = try PushgateTool.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
    }
}
