import Foundation
import Synchronization

/// A source of wall-clock time. Everything time-based takes one so tests can use ``ManualClock``.
public protocol WallClock: Sendable {
    /// Milliseconds since the Unix epoch.
    var nowMilliseconds: Int64 { get }
}

extension WallClock {
    /// Seconds since the Unix epoch, with a fractional part.
    public var nowSeconds: Double { Double(nowMilliseconds) / 1000 }
}

/// The system's real-time clock.
public struct SystemClock: WallClock {
    public init() {}
    public var nowMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// A clock that moves only when a test tells it to.
public final class ManualClock: WallClock {
    private let millis: Mutex<Int64>

    /// A clock reading `milliseconds` since the epoch.
    public init(milliseconds: Int64 = 1_764_669_600_000) { millis = Mutex(milliseconds) }

    public var nowMilliseconds: Int64 { millis.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value) by `milliseconds`.
    public func advance(milliseconds: Int64) { millis.withLock { $0 += milliseconds } }

    /// Sets the clock to `milliseconds` since the epoch.
    public func set(milliseconds: Int64) { millis.withLock { $0 = milliseconds } }
}
