import Foundation
import PushgateCore
import PushgateHTTP
import PushgateTestSupport
import PushgateTesting
import Testing

/// `--tls-dir`: a fake restarted on the same port after an outage presents the certificate its
/// clients already trust (the real binary, real TLS).
@Suite(.hangLimit(.minutes(1))) struct FakeProviderTLSDirectoryTests {
    struct Files {
        let directory: URL
        var tls: String { directory.appendingPathComponent("tls").path }
        func certificate(_ name: String) -> String { directory.appendingPathComponent("\(name).pem").path }
        func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    }

    static let token = String(repeating: "ab", count: 32)

    @Test func aFakeRestartedOnItsPortIsTrustedWithTheFirstCertificate() async throws {
        let files = Files(directory: try TemporaryDirectory.create("pushgate-tool"))
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let first = try await FakeProviderProcess.start(["fake-apns", "--tls-dir", files.tls, "--cert-out", files.certificate("first")])
        let trusted = try files.text(files.certificate("first"))
        #expect(try files.text(files.tls + "/cert.pem") == trusted)
        let modes = try [files.tls, files.tls + "/key.pem"].map { try FileManager.default.attributesOfItem(atPath: $0)[.posixPermissions] as? Int }
        #expect(modes == [0o700, 0o600])
        let before = try FakeProviderClient(port: first.port, caFile: files.certificate("first"))
        #expect(try await before.apnsAlert(token: Self.token).status == 200)
        await before.shutdown()
        #expect(try await !first.stop().contains("--tls-dir"))

        let restarted = try await FakeProviderProcess.start([
            "fake-apns", "--tls-dir", files.tls, "--port", String(first.port), "--cert-out", files.certificate("restarted"),
        ])
        #expect(restarted.port == first.port)
        #expect(try files.text(files.certificate("restarted")) == trusted)
        let after = try FakeProviderClient(port: restarted.port, caFile: files.certificate("first"))
        #expect(try await after.apnsAlert(token: Self.token).status == 200)
        await after.shutdown()
        #expect(try await !restarted.stop().contains("--tls-dir"))
    }

    @Test func anUnusablePairIsReplacedAndSaidSo() async throws {
        let files = Files(directory: try TemporaryDirectory.create("pushgate-tool"))
        defer { try? FileManager.default.removeItem(at: files.directory) }
        try FileManager.default.createDirectory(atPath: files.tls, withIntermediateDirectories: false)
        try "garbage".write(toFile: files.tls + "/key.pem", atomically: true, encoding: .utf8)
        try "garbage".write(toFile: files.tls + "/cert.pem", atomically: true, encoding: .utf8)
        let fake = try await FakeProviderProcess.start(["fake-fcm", "--tls-dir", files.tls, "--cert-out", files.certificate("fresh")])
        #expect(try files.text(files.tls + "/cert.pem") == files.text(files.certificate("fresh")))
        let client = try FakeProviderClient(port: fake.port, caFile: files.certificate("fresh"))
        #expect(try await client.fcmSend(token: "t", accessToken: "ya29.none").status == 401, "served with the new pair")
        await client.shutdown()
        let stderr = try await fake.stop()
        #expect(stderr.contains("pushgate-dev fake-fcm: --tls-dir \(files.tls): key.pem is not a P-256 PKCS#8 key; made a new key and certificate"))
    }

    /// Two fakes started at once on one new directory take turns: both present the same pair.
    @Test func fakesStartedAtOnceShareOnePair() async throws {
        let files = Files(directory: try TemporaryDirectory.create("pushgate-tool"))
        defer { try? FileManager.default.removeItem(at: files.directory) }
        async let one = FakeProviderProcess.start(["fake-apns", "--tls-dir", files.tls, "--cert-out", files.certificate("one")])
        async let two = FakeProviderProcess.start(["fake-fcm", "--tls-dir", files.tls, "--cert-out", files.certificate("two")])
        let fakes = try await [one, two]
        #expect(try files.text(files.certificate("one")) == files.text(files.certificate("two")))
        #expect(try files.text(files.certificate("one")) == files.text(files.tls + "/cert.pem"))
        for fake in fakes { _ = try await fake.stop() }
    }

    @Test func aFileWhereTheDirectoryShouldBeStopsStartUp() async throws {
        let files = Files(directory: try TemporaryDirectory.create("pushgate-tool"))
        defer { try? FileManager.default.removeItem(at: files.directory) }
        try "x".write(toFile: files.tls, atomically: true, encoding: .utf8)
        let outcome = try await PushgateTool.runOnOwnThread(program: .dev, ["fake-apns", "--tls-dir", files.tls])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("--tls-dir \(files.tls): not a directory"))
    }
}
