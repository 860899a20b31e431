import Foundation

/// The replay keys of a single relay (SQLite mode) on disk, so a replay stays refused across a
/// restart or a `kill -9`: an append-only file of 24-byte records (digest, expiry), beside the
/// database, mode 0600.
///
/// Each record is one `write` to the page cache without `fsync` — what SQLite's
/// `synchronous=NORMAL` gives: it survives the process, not a power cut. A record with expiry 0
/// forgets its key. Opening keeps only the live keys and rewrites the file; the owner rewrites
/// it again (``compact(_:)``) when dead records outnumber live ones.
///
/// Not thread-safe: its owner calls it under its own lock.
public final class ReplayJournal {
    /// Why the journal could not be opened or written.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    static let recordSize = 24

    public let path: String
    private var descriptor: Int32
    private var size: Int
    /// Records in the file, live or not.
    public private(set) var recordCount: Int

    /// Opens (or creates) the journal at `path`; returns it with the keys still live at `nowMs`.
    public static func open(path: String, nowMs: Int64) throws(Failure) -> (ReplayJournal, [(ReplayDigest, Int64)]) {
        var live: [ReplayDigest: Int64] = [:]
        if let data = FileManager.default.contents(atPath: path) {
            let bytes = [UInt8](data)
            // A record cut short by a crash is ignored.
            for start in stride(from: 0, to: bytes.count - recordSize + 1, by: recordSize) {
                let digest = ReplayDigest(bytes: bytes[start ..< start + 16])
                let expiry = Int64(bitPattern: bytes[start + 16 ..< start + 24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                live[digest] = expiry > nowMs ? expiry : nil
            }
        }
        let entries = live.map { ($0.key, $0.value) }
        let journal = try ReplayJournal(path: path, rewrittenWith: entries)
        return (journal, entries)
    }

    private init(path: String, rewrittenWith entries: [(ReplayDigest, Int64)]) throws(Failure) {
        self.path = path
        descriptor = -1
        size = 0
        recordCount = 0
        try rewrite(entries)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends a live key.
    public func append(_ digest: ReplayDigest, expiresAtMs: Int64) throws(Failure) {
        try write(Self.record(digest, expiresAtMs))
    }

    /// Appends a record that forgets `digest`.
    public func appendForget(_ digest: ReplayDigest) throws(Failure) { try write(Self.record(digest, 0)) }

    /// Rewrites the file with `entries` only (temporary file, then rename).
    public func compact(_ entries: some Sequence<(ReplayDigest, Int64)>) throws(Failure) { try rewrite(entries) }

    private func rewrite(_ entries: some Sequence<(ReplayDigest, Int64)>) throws(Failure) {
        let temporary = path + ".new"
        let fd = Foundation.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("create \(temporary)") }
        var bytes: [UInt8] = []
        var count = 0
        for (digest, expiry) in entries {
            bytes += Self.record(digest, expiry)
            count += 1
        }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fchmod(fd, 0o600) == 0, rename(temporary, path) == 0 else {
            let failure = Self.failure("write \(temporary)")
            close(fd)
            unlink(temporary)
            throw failure
        }
        close(fd)
        let appender = Foundation.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard appender >= 0 else { throw Self.failure("open \(path)") }
        if descriptor >= 0 { close(descriptor) }
        descriptor = appender
        size = bytes.count
        recordCount = count
    }

    private func write(_ record: [UInt8]) throws(Failure) {
        let written = record.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == record.count else {
            let failure = Self.failure("append to \(path)")
            // A partial record would shift every later one: cut it off.
            if written > 0 { _ = ftruncate(descriptor, off_t(size)) }
            throw failure
        }
        size += record.count
        recordCount += 1
    }

    private static func record(_ digest: ReplayDigest, _ expiry: Int64) -> [UInt8] {
        digest.bytes + (0 ..< 8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: expiry) >> (56 - 8 * $0)) }
    }

    private static func failure(_ operation: String) -> Failure {
        Failure(description: "cannot \(operation): \(String(cString: strerror(errno)))")
    }
}
