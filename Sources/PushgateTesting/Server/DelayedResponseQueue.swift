/// Responses waiting for their scripted delay, earliest first; the fake's timer is armed for the
/// first one.
struct DelayedResponseQueue {
    /// One response waiting on its timer.
    struct Entry {
        /// CLOCK_MONOTONIC in ns, as ``EarliestDeadlineTimer/now()`` reads it.
        let due: UInt64
        let connectionId: Int
        let streamId: Int32
        let response: FakeHTTP2Response
    }

    private var entries: [Entry] = []

    /// When the first entry is due, or nil when empty.
    var nextDue: UInt64? { entries.first?.due }

    /// Adds `entry`, keeping due order (entries due at the same time keep arrival order).
    mutating func add(_ entry: Entry) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].due <= entry.due { low = middle + 1 } else { high = middle }
        }
        entries.insert(entry, at: low)
    }

    /// Removes and returns every entry due at `now`.
    mutating func takeDue(now: UInt64) -> [Entry] {
        let dueCount = entries.firstIndex { $0.due > now } ?? entries.count
        defer { entries.removeFirst(dueCount) }
        return Array(entries.prefix(dueCount))
    }
}
