import Foundation
import PushgateTesting
import PushgateTestSupport

extension FakeAPNs {
    /// Waits (off the cooperative pool, polling the fake's counters every millisecond, for at
    /// most `seconds`) until it has received `count` requests in all.
    func waitForRequests(_ count: Int, within seconds: Int = 10) async throws {
        try await blocking {
            for _ in 0..<(seconds * 1_000) where self.counters.requests < count { usleep(1_000) }
            if self.counters.requests < count { throw POSIXError(.ETIMEDOUT) }
        }
    }
}
