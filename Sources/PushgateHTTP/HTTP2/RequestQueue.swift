/// A FIFO of waiting requests that can also put a request back at the front (for retries).
struct RequestQueue {
    private var items: [PendingRequest?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(_ request: PendingRequest) { items.append(request) }

    mutating func prepend(_ request: PendingRequest) {
        if head > 0 {
            head -= 1
            items[head] = request
        } else {
            items.insert(request, at: 0)
        }
    }

    var first: PendingRequest? { isEmpty ? nil : items[head] }

    mutating func removeFirst() -> PendingRequest? {
        guard !isEmpty else { return nil }
        let request = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return request
    }

    /// Drops finished requests (timed out or cancelled while waiting) from the front.
    mutating func dropFinishedPrefix() {
        while let request = first, request.isFinished { _ = removeFirst() }
    }

    /// Removes and returns every request.
    mutating func removeAll() -> [PendingRequest] {
        let all = items[head...].compactMap { $0 }
        items.removeAll()
        head = 0
        return all
    }
}
