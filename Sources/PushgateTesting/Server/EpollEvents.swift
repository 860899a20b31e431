import Glibc

/// The epoll event bits a fake watches for. Glibc's module leaves out <sys/epoll.h>, and
/// epoll_ctl(2) gives them poll(2)'s values.
enum EpollEvents {
    static let readable = UInt32(POLLIN)
    static let writable = UInt32(POLLOUT)
}
