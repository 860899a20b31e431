/// Responses waiting for their scripted delay, earliest first; the I/O loop polls with the
/// time until the first one is due.
struct DelayedResponseQueue {
    /// One response waiting on its timer.
    struct Entry {
        let dueMilliseconds: Int64
        let connectionId: Int
        let streamId: Int32
        let response: FakeHTTP2Response
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Adds `entry`, keeping due order (entries due at the same time keep arrival order).
    mutating func add(_ entry: Entry) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].dueMilliseconds <= entry.dueMilliseconds { low = middle + 1 } else { high = middle }
        }
        entries.insert(entry, at: low)
    }

    /// Milliseconds until the first entry is due (0 when overdue), or nil when empty.
    func millisecondsUntilNext(now: Int64) -> Int64? {
        entries.first.map { max(0, $0.dueMilliseconds - now) }
    }

    /// Removes and returns every entry due at `now`.
    mutating func takeDue(now: Int64) -> [Entry] {
        let dueCount = entries.firstIndex { $0.dueMilliseconds > now } ?? entries.count
        defer { entries.removeFirst(dueCount) }
        return Array(entries.prefix(dueCount))
    }
}
