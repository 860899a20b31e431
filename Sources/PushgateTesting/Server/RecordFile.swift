import Glibc

/// The `--record` file of `pushgate-dev fake-apns` and `pushgate-dev fake-fcm`: one JSON line per
/// request, appended (each line is one `write`, so lines never interleave).
public final class RecordFile: Sendable {
    /// A record file that could not be opened.
    public struct OpenError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot open record file \(path): \(reason)" }
    }

    private let descriptor: Int32

    /// Opens `path` for appending, creating it (mode 0600: lines hold device tokens) when missing.
    public init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Appends `line` and a newline.
    public func append(line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
