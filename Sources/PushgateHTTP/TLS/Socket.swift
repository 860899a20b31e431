import Glibc

/// Small socket helpers shared by the listener and connections.
enum Socket {
    /// Ignore SIGPIPE once per process: a write to a peer that went away must surface as EPIPE,
    /// not kill the process (OpenSSL writes with plain `write`).
    static let ignoreBrokenPipe: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Sets non-blocking mode, close-on-exec and TCP_NODELAY (HTTP/2 frames are small and latency-bound).
    static func prepare(_ fd: Int32, operation: String) throws {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
            throw TLSError(.connectFailed, operation: operation, detail: Socket.errnoText(errno))
        }
        var one: Int32 = 1
        guard setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw TLSError(.connectFailed, operation: operation, detail: Socket.errnoText(errno))
        }
    }

    /// The text for an errno value.
    static func errnoText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
