import Glibc
import PushgateCore

/// Small socket helpers shared by the listener and connections.
package enum Socket {
    /// Ignore SIGPIPE once per process: a write to a peer that went away must surface as EPIPE,
    /// not kill the process (OpenSSL writes with plain `write`).
    package static let ignoreBrokenPipe: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Sets non-blocking mode, close-on-exec and TCP_NODELAY (HTTP/2 frames are small and latency-bound).
    package static func prepare(_ fd: Int32) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
            throw .last("fcntl")
        }
        var one: Int32 = 1
        guard setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .last("setsockopt TCP_NODELAY")
        }
    }

    /// The text for an errno value.
    package static func errnoText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
