import Synchronization

/// Dispatch counts since start: events dispatched, and their pushes by outcome.
final class HostCounters: Sendable {
    struct Counts: Sendable {
        var events = 0
        var accepted = 0
        var failed = 0
        var dropped = 0
        var queued = 0
        /// Events answered 503 `store_unavailable`.
        var storeUnavailable = 0
    }

    private let counts = Mutex(Counts())

    var current: Counts { counts.withLock { $0 } }

    func record(_ result: DispatchResult) {
        counts.withLock { counts in
            counts.events += 1
            counts.accepted += result.accepted
            counts.failed += result.failed
            counts.dropped += result.dropped
            counts.queued += result.queued
            if result.storeUnavailable { counts.storeUnavailable += 1 }
        }
    }
}

/// The host's Prometheus text (docs/host.md, "Metrics"): the same figures as `/api/status`.
enum HostMetrics {
    static func render(counters: HostCounters.Counts, outbox: OutboxCounters.Counts, depth: Int?, oldestCreatedAtMs: Int64?,
                       nowMs: Int64) -> String {
        var text = "# TYPE pushgate_host_events_total counter\npushgate_host_events_total \(counters.events)\n"
        text += "# TYPE pushgate_host_pushes_total counter\n"
        for (outcome, count) in [("accepted", counters.accepted), ("failed", counters.failed), ("dropped", counters.dropped),
                                 ("queued", counters.queued)] {
            text += "pushgate_host_pushes_total{outcome=\"\(outcome)\"} \(count)\n"
        }
        text += "# TYPE pushgate_host_store_unavailable_total counter\n"
        text += "pushgate_host_store_unavailable_total \(counters.storeUnavailable)\n"
        for (name, value) in outbox.all {
            text += "# TYPE pushgate_host_outbox_\(name)_total counter\npushgate_host_outbox_\(name)_total \(value)\n"
        }
        // Gauges the store could not read are left out rather than shown as 0.
        if let depth {
            let age = oldestCreatedAtMs.map { Double(max(0, nowMs - $0)) / 1_000 } ?? 0
            text += "# TYPE pushgate_host_outbox_depth gauge\npushgate_host_outbox_depth \(depth)\n"
            text += "# TYPE pushgate_host_outbox_oldest_age_seconds gauge\npushgate_host_outbox_oldest_age_seconds \(age)\n"
        }
        return text
    }
}
