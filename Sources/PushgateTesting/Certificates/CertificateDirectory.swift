import Foundation
import Glibc
import PushgateCore

/// A directory that keeps a fake server's key and certificate across restarts (`--tls-dir`):
/// `key.pem` (mode 0600) and `cert.pem`, so a fake restarted on the same port after an outage
/// presents the certificate its clients already trust.
///
/// Fakes starting at once on one directory take turns (an exclusive `flock` on its `.lock`
/// file), so they all end up with the same pair; each file is written to a temporary name and
/// renamed into place, so nobody ever reads half of one.
public struct CertificateDirectory: Sendable {
    /// What ``certificate(clock:)`` found.
    public enum Outcome: Sendable, Equatable {
        /// No pair yet: one was made and written.
        case created
        /// The pair on disk was usable and is used.
        case reused
        /// The pair on disk was not usable (why): a new one replaced it.
        case replaced(reason: String)
    }

    /// A file or directory operation that failed.
    public struct FileError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// A certificate with less validity left than this (seconds) is replaced, so a fake started
    /// on it is trusted for at least that long.
    public static let minimumRemainingSeconds: Int64 = 3600

    public let path: String
    public var keyPath: String { path + "/key.pem" }
    public var certificatePath: String { path + "/cert.pem" }

    public init(path: String) {
        self.path = path
    }

    /// The pair kept in the directory: read back when usable, else generated and written. The
    /// directory is created (mode 0700) when missing. `clock` decides what expires soon.
    public func certificate(clock: any WallClock = SystemClock()) throws -> (certificate: SelfSignedCertificate, outcome: Outcome) {
        try createDirectory()
        let lock = try lockExclusively()
        defer { close(lock) }  // releases the lock
        let outcome: Outcome
        switch storedPair(clock: clock) {
        case .success(let stored): return (stored, .reused)
        case .failure(.missing): outcome = .created
        case .failure(.unusable(let reason)): outcome = .replaced(reason: reason)
        }
        let fresh = try SelfSignedCertificate.generate(clock: clock)
        try write(fresh.privateKeyPEM, to: keyPath, mode: 0o600)
        try write(fresh.certificatePEM, to: certificatePath, mode: 0o644)
        return (fresh, outcome)
    }

    /// Why the stored pair cannot be used.
    private enum StoredPairProblem: Error {
        /// Neither file is there: a first start.
        case missing
        case unusable(String)
    }

    /// The pair on disk, or why it cannot be used.
    private func storedPair(clock: any WallClock) -> Result<SelfSignedCertificate, StoredPairProblem> {
        let keyPEM = Self.contents(of: keyPath)
        let certificatePEM = Self.contents(of: certificatePath)
        guard let keyPEM, let certificatePEM else {
            if keyPEM == nil && certificatePEM == nil { return .failure(.missing) }
            return .failure(.unusable("\(keyPEM == nil ? "key.pem" : "cert.pem") is missing"))
        }
        guard let key = try? P256PrivateKey(pkcs8PEM: keyPEM) else { return .failure(.unusable("key.pem is not a P-256 PKCS#8 key")) }
        guard let certificate = try? X509Handle(pem: certificatePEM) else { return .failure(.unusable("cert.pem is not a PEM certificate")) }
        guard certificate.isCertifying(key) else { return .failure(.unusable("cert.pem is not the certificate of key.pem")) }
        if certificate.expires(before: clock.nowMilliseconds / 1000 + Self.minimumRemainingSeconds) {
            return .failure(.unusable("cert.pem expires within an hour"))
        }
        return .success(SelfSignedCertificate(certificatePEM: certificatePEM, privateKeyPEM: keyPEM))
    }

    /// Creates the directory with mode 0700; an existing directory is used as it is.
    private func createDirectory() throws {
        guard mkdir(path, 0o700) != 0 else { return }
        let failure = errno
        var status = stat()
        guard failure == EEXIST, stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw FileError(path: path, reason: failure == EEXIST ? "not a directory" : String(cString: strerror(failure)))
        }
    }

    /// Opens the directory's lock file and waits for its exclusive lock; closing the descriptor releases it.
    private func lockExclusively() throws -> Int32 {
        let lockPath = path + "/.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(path: lockPath, reason: String(cString: strerror(errno))) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw FileError(path: lockPath, reason: reason)
            }
        }
        return descriptor
    }

    /// The text of `path`, or nil when it cannot be read.
    private static func contents(of path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// Writes `text` to a temporary file in the directory (created with `mode`), flushes it to
    /// disk and renames it over `target`. The caller holds the lock, so the temporary name is its own.
    private func write(_ text: String, to target: String, mode: mode_t) throws {
        let temporary = target + ".tmp"
        unlink(temporary)  // one left by a crash may have another mode
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw FileError(path: temporary, reason: String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        var written = 0
        var failure: String?
        while failure == nil, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if errno != EINTR {
                failure = String(cString: strerror(errno))
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temporary, target) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw FileError(path: target, reason: failure)
        }
    }
}
