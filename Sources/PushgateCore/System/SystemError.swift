import Glibc

/// A system call that failed: which one and the `errno` it left, such as
/// "epoll_create1: Too many open files".
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call and, where it helps, what it was for (`socket`, `bind 127.0.0.1:8080`).
    public let operation: String
    public let errno: Int32

    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// The failure of `operation` with the calling thread's current `errno`; read it right
    /// after the call, before anything else can change it.
    public static func last(_ operation: String) -> SystemError {
        SystemError(operation: operation, errno: Glibc.errno)
    }

    /// The C library's text for `errno`.
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(operation): \(reason)" }
}
