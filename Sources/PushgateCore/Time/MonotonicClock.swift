import Glibc

/// Milliseconds since an arbitrary fixed point that never jumps: for deadlines, timeouts and
/// back-off, which an NTP step of the wall clock must not move. What goes on the wire or is
/// compared with a request's `ts` reads a ``WallClock`` instead.
public protocol MonotonicClock: Sendable {
    var nowMilliseconds: Int64 { get }
}

/// The system's monotonic clock (CLOCK_MONOTONIC).
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}
    public var nowMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// A test's manual clock serves as a monotonic one too: it moves only when the test advances it.
extension ManualClock: MonotonicClock {}
