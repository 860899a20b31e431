import Foundation
import PushgateCore
import Synchronization
import Testing
@testable import PushgateTesting
import PushgateTestSupport

/// `--tls-dir`: the key and certificate a fake keeps across restarts.
@Suite(.hangLimit(.minutes(1))) struct CertificateDirectoryTests {
    /// A directory path under a fresh parent, removed by `body`'s end.
    private func withParent(_ body: (URL) throws -> Void) throws {
        let parent = try TemporaryDirectory.create("tls-dir")
        defer { try? FileManager.default.removeItem(at: parent) }
        try body(parent)
    }

    private func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test func createsThePairOnceAndReusesIt() throws {
        try withParent { parent in
            let directory = CertificateDirectory(path: parent.appendingPathComponent("tls").path)
            let first = try directory.certificate()
            #expect(first.outcome == .created)
            #expect(try mode(directory.path) == 0o700)
            #expect(try mode(directory.keyPath) == 0o600)
            #expect(try String(contentsOfFile: directory.keyPath, encoding: .utf8) == first.certificate.privateKeyPEM)
            #expect(try String(contentsOfFile: directory.certificatePath, encoding: .utf8) == first.certificate.certificatePEM)

            let second = try directory.certificate()
            #expect(second.outcome == .reused)
            #expect(second.certificate.certificatePEM == first.certificate.certificatePEM)
            #expect(second.certificate.privateKeyPEM == first.certificate.privateKeyPEM)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(names == [".lock", "cert.pem", "key.pem"], "no temporary file is left")
        }
    }

    @Test func replacesACertificateThatExpiresWithinAnHour() throws {
        try withParent { parent in
            let directory = CertificateDirectory(path: parent.appendingPathComponent("tls").path)
            let start: Int64 = 1_764_669_600_000
            let first = try directory.certificate(clock: ManualClock(milliseconds: start))
            // Valid for a day: still usable 22 hours later, not 23.5 hours later.
            #expect(try directory.certificate(clock: ManualClock(milliseconds: start + 22 * 3_600_000)).outcome == .reused)
            let late = try directory.certificate(clock: ManualClock(milliseconds: start + 23 * 3_600_000 + 1_800_000))
            #expect(late.outcome == .replaced(reason: "cert.pem expires within an hour"))
            #expect(late.certificate.certificatePEM != first.certificate.certificatePEM)
            #expect(try String(contentsOfFile: directory.certificatePath, encoding: .utf8) == late.certificate.certificatePEM)
        }
    }

    @Test func replacesAPairThatCannotBeUsed() throws {
        try withParent { parent in
            let directory = CertificateDirectory(path: parent.appendingPathComponent("tls").path)
            _ = try directory.certificate()
            try "not a certificate".write(toFile: directory.certificatePath, atomically: true, encoding: .utf8)
            #expect(try directory.certificate().outcome == .replaced(reason: "cert.pem is not a PEM certificate"))

            try SelfSignedCertificate.generate().privateKeyPEM.write(toFile: directory.keyPath, atomically: true, encoding: .utf8)
            #expect(try directory.certificate().outcome == .replaced(reason: "cert.pem is not the certificate of key.pem"))

            try "garbage".write(toFile: directory.keyPath, atomically: true, encoding: .utf8)
            #expect(try directory.certificate().outcome == .replaced(reason: "key.pem is not a P-256 PKCS#8 key"))

            try FileManager.default.removeItem(atPath: directory.keyPath)
            #expect(try directory.certificate().outcome == .replaced(reason: "key.pem is missing"))
            #expect(try mode(directory.keyPath) == 0o600)
            #expect(try directory.certificate().outcome == .reused)
        }
    }

    /// Fakes starting at once on one directory take turns, so they all get the same pair.
    @Test func concurrentStartsAgreeOnOnePair() throws {
        try withParent { parent in
            let path = parent.appendingPathComponent("tls").path
            let pems = Mutex<[String?]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let pem = try? CertificateDirectory(path: path).certificate().certificate.certificatePEM
                pems.withLock { $0.append(pem) }
            }
            let distinct = pems.withLock { Set($0) }
            #expect(distinct.count == 1 && distinct.first??.isEmpty == false)
        }
    }

    @Test func aFileInThePlaceOfTheDirectoryIsAnError() throws {
        try withParent { parent in
            let path = parent.appendingPathComponent("tls").path
            try "x".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: CertificateDirectory.FileError.self) { try CertificateDirectory(path: path).certificate() }
        }
    }
}
