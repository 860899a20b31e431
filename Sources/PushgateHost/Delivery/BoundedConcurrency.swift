/// Runs `work` over `items` with at most `limit` running at once and collects the results.
///
/// A single item runs in the calling task: a child task would cost a task and, for an event
/// with one batch, a thread hop for nothing.
func forEachConcurrently<Item: Sendable, Result: Sendable>(
    _ items: [Item], limit: Int, _ work: @escaping @Sendable (Item) async -> Result
) async -> [Result] {
    if items.count <= 1 {
        guard let item = items.first else { return [] }
        return [await work(item)]
    }
    return await withTaskGroup(of: Result.self) { group in
        var results: [Result] = []
        var iterator = items.makeIterator()
        for _ in 0..<limit {
            guard let item = iterator.next() else { break }
            group.addTask { await work(item) }
        }
        while let result = await group.next() {
            results.append(result)
            if let item = iterator.next() { group.addTask { await work(item) } }
        }
        return results
    }
}
