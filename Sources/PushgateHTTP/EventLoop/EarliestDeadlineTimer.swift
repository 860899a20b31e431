internal import CLinux
import Glibc
import PushgateCore

/// A timerfd that fires by a deadline on CLOCK_MONOTONIC, for a descriptor watched by an
/// ``EpollEventLoop``. It is re-armed only when a deadline moves earlier, so deadlines that
/// keep moving later (a request timeout, an idle timeout) rarely cost a system call; an early
/// firing only makes its owner look again and re-arm.
///
/// Not thread-safe: its owner calls it from one thread at a time.
package final class EarliestDeadlineTimer {
    package let descriptor: Int32
    /// When the timerfd fires next, nil when it is not armed.
    private var armed: UInt64?

    package init() throws(SystemError) {
        descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard descriptor >= 0 else { throw .last("timerfd_create") }
    }

    deinit { Glibc.close(descriptor) }

    /// CLOCK_MONOTONIC in ns; never 0 (an all-zero timerfd setting disarms it).
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return max(1, UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    /// Makes the timer fire by `deadline` (monotonic ns); a later deadline keeps the earlier firing.
    package func arm(by deadline: UInt64) {
        guard armed.map({ deadline < $0 }) ?? true else { return }
        armed = deadline
        var setting = itimerspec(it_interval: timespec(),
                                 it_value: timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000)))
        _ = timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &setting, nil)
    }

    /// Takes a firing (the descriptor was readable); the timer is no longer armed.
    package func fired() {
        var expirations: UInt64 = 0
        _ = Glibc.read(descriptor, &expirations, 8)
        armed = nil
    }
}
