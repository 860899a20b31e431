import Glibc
import PushgateCore
import Testing

/// A failed OS call says which call and why, in the C library's words.
@Suite struct SystemErrorTests {
    @Test func describesTheCallAndItsErrno() {
        let error = SystemError(operation: "epoll_create1", errno: EMFILE)
        #expect(error.description == "epoll_create1: Too many open files")
        #expect(error.reason == "Too many open files")
    }

    @Test func lastReadsTheThreadsErrno() {
        let closed = close(-1)
        let error = SystemError.last("close")
        #expect(closed == -1)
        #expect(error == SystemError(operation: "close", errno: EBADF))
    }
}
