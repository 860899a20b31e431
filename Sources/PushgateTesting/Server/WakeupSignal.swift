import Glibc
import PushgateHTTP

/// A non-blocking pipe that other threads write to wake the fake server's I/O loop out of `poll`.
final class WakeupSignal: Sendable {
    /// The read end; the loop polls it for readability.
    let fileDescriptor: Int32
    private let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TLSError(.configuration, operation: "pipe", detail: String(cString: strerror(errno))) }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Wakes the loop. A full pipe already means "wake up", so a failed write is fine.
    func signal() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// Clears pending signals; the loop calls it when the descriptor turns readable.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while Glibc.read(fileDescriptor, &buffer, buffer.count) > 0 {}
    }
}
