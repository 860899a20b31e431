import Glibc
import PushgateCore
import PushgateHTTP

/// A listening TCP socket (non-blocking) for loopback test servers.
// @unchecked Sendable: an immutable wrapper over a file descriptor; accept(2) and close(2) on it
// are safe from any thread.
public final class TCPListener: @unchecked Sendable {
    public let fileDescriptor: Int32
    /// The bound port (the kernel's choice when created with port 0).
    public let port: UInt16

    /// Binds and listens on `host` (an IP literal) and `port` (0 picks a free one).
    public init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128) throws {
        guard let address = SocketAddress(ipLiteral: host, port: port) else {
            throw SystemError(operation: "listen on \(host), not an IP address", errno: EINVAL)
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let failure = SystemError.last("bind \(address)")
            close(fd)
            throw failure
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let failure = SystemError.last("getsockname")
            close(fd)
            throw failure
        }
        let networkPort = withUnsafeBytes(of: storage) { raw in
            Int32(storage.ss_family) == AF_INET6
                ? raw.load(fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_port)!, as: UInt16.self)
                : raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_port)!, as: UInt16.self)
        }
        self.fileDescriptor = fd
        self.port = UInt16(bigEndian: networkPort)
    }

    deinit { close(fileDescriptor) }

    /// The next pending connection as a non-blocking socket with TCP_NODELAY, or nil when none is waiting.
    /// The caller owns the returned descriptor (hand it to ``TLSConnection/init(acceptedSocket:context:)``).
    public func accept() throws(SystemError) -> Int32? {
        let fd = Glibc.accept(fileDescriptor, nil, nil)
        if fd < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED { return nil }
            throw SystemError(operation: "accept", errno: code)
        }
        do {
            try Socket.prepare(fd)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }
}
