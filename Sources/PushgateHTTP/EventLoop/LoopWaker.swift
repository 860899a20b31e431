import Foundation

/// A non-blocking pipe that wakes a poll(2) loop: the fake servers' (PushgateTesting's
/// `FakeServerLoop`) until they run on an ``EpollEventLoop``, which wakes itself with an eventfd.
// @unchecked Sendable: immutable descriptors; write(2) and read(2) on a pipe are thread-safe.
package final class LoopWaker: @unchecked Sendable {
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw HTTP2ClientError(.connectFailed, detail: "cannot create the event loop's wake-up pipe: \(Socket.errnoText(errno))")
        }
        for fd in descriptors {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes the read end readable (a full pipe already is, so EAGAIN is fine).
    package func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe.
    package func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while Glibc.read(readDescriptor, &scratch, scratch.count) > 0 {}
    }
}
