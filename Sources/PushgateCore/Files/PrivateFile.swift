import Glibc

/// Files that hold secrets or must never be seen half written: created with their final mode
/// from the start (never widened, then narrowed), written in full and flushed to disk.
public enum PrivateFile {
    /// Why a file could not be written: the operation, the file and the system's reason.
    public struct WriteError: Error, CustomStringConvertible {
        public let operation: String
        public let path: String
        public let reason: String
        public var description: String { "cannot \(operation) \(path): \(reason)" }
    }

    /// Creates `path` with `mode` and writes `contents`; refuses to replace an existing file.
    /// A file that could not be written in full is removed again.
    public static func create(_ path: String, contents: [UInt8], mode: mode_t = 0o600) throws(WriteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw WriteError(operation: "create", path: path, reason: errorText()) }
        var written = 0
        var failure: String?
        while failure == nil, written < contents.count {
            let count = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if errno != EINTR {
                failure = errorText()
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errorText() }
        if close(descriptor) != 0, failure == nil { failure = errorText() }
        if let failure {
            unlink(path)
            throw WriteError(operation: "write", path: path, reason: failure)
        }
    }

    /// Replaces `path` atomically: `contents` go to a new temporary file beside it (with
    /// `mode`), which is renamed over it, so a reader sees the old file or the new one, whole.
    public static func replace(_ path: String, contents: [UInt8], mode: mode_t = 0o600) throws(WriteError) {
        let temporary = path + ".tmp-" + Hex.encode(SecureRandom.bytes(6))
        try create(temporary, contents: contents, mode: mode)
        guard rename(temporary, path) == 0 else {
            let reason = errorText()
            unlink(temporary)
            throw WriteError(operation: "rename", path: path, reason: reason)
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
