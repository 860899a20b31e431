import Glibc

/// Milliseconds on the monotonic clock, for scripted delays (real I/O time, not wall-clock time).
enum MonotonicTime {
    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
