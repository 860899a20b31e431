/// The badge tag set (protocol/host-api.md §4) held in memory, with the tags added since the last write
/// to `badge_tags`: the set answers every event, the table only has to catch up.
struct BadgeSet {
    /// One tag not yet in `badge_tags`.
    struct Unwritten {
        let tag: String
        let addedAtMs: Int64
    }

    private(set) var tags: Set<String>
    private(set) var unwritten: [Unwritten] = []

    init(tags: Set<String>) { self.tags = tags }

    var count: Int { tags.count }

    /// Adds `tag`; `false` when the set already held it.
    mutating func insert(_ tag: String, atMs addedAtMs: Int64) -> Bool {
        guard tags.insert(tag).inserted else { return false }
        unwritten.append(Unwritten(tag: tag, addedAtMs: addedAtMs))
        return true
    }

    /// Hands the unwritten tags to a write; a failed write gives them back with ``restore(_:)``.
    mutating func takeUnwritten() -> [Unwritten] {
        defer { unwritten.removeAll() }
        return unwritten
    }

    /// Returns tags whose write failed, ahead of any added since (unless cleared meanwhile).
    mutating func restore(_ failed: [Unwritten]) {
        unwritten = failed.filter { tags.contains($0.tag) } + unwritten
    }

    /// Takes back a tag whose write failed where that failure is not retried.
    mutating func remove(_ tag: String) {
        tags.remove(tag)
        unwritten.removeAll { $0.tag == tag }
    }

    mutating func removeAll() {
        tags.removeAll()
        unwritten.removeAll()
    }
}
