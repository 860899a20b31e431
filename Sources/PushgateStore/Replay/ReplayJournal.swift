import Foundation

/// The replay keys of a single relay (SQLite mode) on disk, so a replay stays refused across a
/// restart or a `kill -9`: 24-byte records (digest, expiry) in a file beside the database, mode
/// 0600, mapped into memory.
///
/// A record is a store into a shared mapping of blocks reserved up front (`posix_fallocate`),
/// with no system call: the kernel's page cache holds it once written, so it survives the
/// process, like SQLite's `synchronous=NORMAL`, though not a power cut. A record with expiry 0
/// forgets its key; the first all-zero record ends the file. Opening keeps only the live keys
/// and rewrites the file; the owner rewrites it again (``compact(_:)``) when dead records
/// outnumber live ones, and it grows by doubling.
///
/// Not thread-safe: its owner calls it under its own lock.
public final class ReplayJournal {
    /// Why the journal could not be opened or written.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    static let recordSize = 24
    /// Records the file has room for at least, so a small relay never grows it.
    static let minimumCapacity = 65_536

    public let path: String
    private var descriptor: Int32 = -1
    private var mapping: UnsafeMutableRawPointer?
    private var capacity = 0
    /// Records in the file, live or not.
    public private(set) var recordCount = 0

    /// Opens (or creates) the journal at `path`; returns it with the keys still live at `nowMs`.
    /// - Throws: ``Failure`` also when another process holds the journal (a second relay on the
    ///   same database).
    public static func open(path: String, nowMs: Int64) throws(Failure) -> (ReplayJournal, [(ReplayDigest, Int64)]) {
        let existing = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        if existing >= 0 {
            defer { close(existing) }
            guard flock(existing, LOCK_EX | LOCK_NB) == 0 else {
                throw Failure(description: "another relay process uses \(path) (one SQLite relay per DATABASE_PATH)")
            }
        }
        var live: [ReplayDigest: Int64] = [:]
        if let data = FileManager.default.contents(atPath: path) {
            data.withUnsafeBytes { bytes in
                var start = 0
                while start + recordSize <= bytes.count {
                    let digest = ReplayDigest(high: load(bytes, start), low: load(bytes, start + 8))
                    let expiry = Int64(bitPattern: load(bytes, start + 16))
                    if digest.high == 0, digest.low == 0, expiry == 0 { break }  // the unused room
                    live[digest] = expiry > nowMs ? expiry : nil
                    start += recordSize
                }
            }
        }
        let entries = live.map { ($0.key, $0.value) }
        let journal = ReplayJournal(path: path)
        try journal.rewrite(entries, count: entries.count)
        return (journal, entries)
    }

    private init(path: String) { self.path = path }

    deinit { unmap() }

    /// Appends a live key.
    public func append(_ digest: ReplayDigest, expiresAtMs: Int64) throws(Failure) { try write(digest, expiresAtMs) }

    /// Appends a record that forgets `digest`.
    public func appendForget(_ digest: ReplayDigest) throws(Failure) { try write(digest, 0) }

    /// Rewrites the file with `entries` only (a new file, then rename).
    public func compact(_ entries: [(ReplayDigest, Int64)]) throws(Failure) { try rewrite(entries, count: entries.count) }

    private func write(_ digest: ReplayDigest, _ expiry: Int64) throws(Failure) {
        if recordCount == capacity { try grow() }
        guard let mapping else { throw Failure(description: "\(path) is not open") }
        let offset = recordCount * Self.recordSize
        mapping.storeBytes(of: digest.high.bigEndian, toByteOffset: offset, as: UInt64.self)
        mapping.storeBytes(of: digest.low.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
        mapping.storeBytes(of: UInt64(bitPattern: expiry).bigEndian, toByteOffset: offset + 16, as: UInt64.self)
        recordCount += 1
    }

    /// Doubles the file's reserved room and maps it again.
    private func grow() throws(Failure) {
        let larger = capacity * 2
        let reserved = posix_fallocate(descriptor, 0, off_t(larger * Self.recordSize))
        guard reserved == 0 else { throw Self.failure("reserve room in \(path)", errno: reserved) }
        unmapOnly()
        try map(capacity: larger)
    }

    private func rewrite(_ entries: [(ReplayDigest, Int64)], count: Int) throws(Failure) {
        let temporary = path + ".new"
        let fd = Foundation.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("create \(temporary)", errno: errno) }
        let room = max(Self.minimumCapacity, 2 * count)
        let reserved = posix_fallocate(fd, 0, off_t(room * Self.recordSize))
        // The lock goes with the file that becomes the journal: it marks this process as its writer.
        guard reserved == 0, fchmod(fd, 0o600) == 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let failure = Self.failure("prepare \(temporary)", errno: reserved == 0 ? errno : reserved)
            close(fd)
            unlink(temporary)
            throw failure
        }
        unmap()
        descriptor = fd
        try map(capacity: room)
        recordCount = 0
        for (digest, expiry) in entries { try write(digest, expiry) }
        guard rename(temporary, path) == 0 else {
            // Writing on into a file that never becomes the journal would lose every key.
            let failure = Self.failure("rename \(temporary)", errno: errno)
            unmap()
            unlink(temporary)
            throw failure
        }
    }

    private func map(capacity: Int) throws(Failure) {
        let pointer = mmap(nil, capacity * Self.recordSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let pointer, pointer != MAP_FAILED else { throw Self.failure("map \(path)", errno: errno) }
        mapping = pointer
        self.capacity = capacity
    }

    private func unmapOnly() {
        if let mapping { munmap(mapping, capacity * Self.recordSize) }
        mapping = nil
    }

    private func unmap() {
        unmapOnly()
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    private static func load(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private static func failure(_ operation: String, errno code: Int32) -> Failure {
        Failure(description: "cannot \(operation): \(String(cString: strerror(code)))")
    }
}
