import Foundation
import PushgateTesting
import PushgateTestSupport

extension FakeAPNs {
    /// Waits (off the cooperative pool, polling the fake's counters every millisecond, for at
    /// most `seconds`) until it has received `count` requests in all.
    func waitForRequests(_ count: Int, within seconds: Int = 10) async throws {
        try await onOwnThread {
            for _ in 0..<(seconds * 1_000) where self.counters.requests < count { usleep(1_000) }
            if self.counters.requests < count { throw POSIXError(.ETIMEDOUT) }
        }
    }

    /// Waits (off the cooperative pool, polling every millisecond, for at most `seconds`) until
    /// the requests received so far satisfy `done`.
    func waitForRequests(within seconds: Int, until done: @escaping @Sendable ([RecordedRequest]) -> Bool) async throws {
        try await onOwnThread {
            for _ in 0..<(seconds * 1_000) where !done(self.requests) { usleep(1_000) }
            if !done(self.requests) { throw POSIXError(.ETIMEDOUT) }
        }
    }
}
