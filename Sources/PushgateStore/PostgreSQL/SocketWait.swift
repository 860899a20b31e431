import Foundation

/// Waits with `poll(2)` until a socket is ready or a deadline passes, so a libpq call on a
/// non-blocking connection never waits longer than its caller allows.
enum SocketWait {
    /// What the socket became ready for.
    struct Readiness: OptionSet {
        let rawValue: Int16
        static let readable = Readiness(rawValue: Int16(POLLIN))
        static let writable = Readiness(rawValue: Int16(POLLOUT))
    }

    /// The deadline passed first.
    struct DeadlinePassed: Error {}

    /// Returns what `socket` is ready for among `events` (an error or hang-up counts as
    /// readable: the next libpq call reports it); without a deadline, waits as long as it takes.
    /// - Throws: ``DeadlinePassed``; `POSIXError` when `poll` itself fails.
    static func wait(for events: Readiness, on socket: Int32, until deadline: ContinuousClock.Instant?) throws -> Readiness {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { throw DeadlinePassed() }
                let (seconds, attoseconds) = remaining.components
                // Rounded up, so a wait never ends a little before the deadline only to poll again for 0 ms.
                milliseconds = Int32(clamping: seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            var descriptor = pollfd(fd: socket, events: events.rawValue, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 {
                let revents = Readiness(rawValue: descriptor.revents)
                let failed = descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                return failed ? .readable : revents.intersection(events)
            }
            if ready < 0, errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
    }
}
