import PushgateStore

/// `event_versions`: the last Live Activity `eventVersion` used per session id and for the
/// aggregate id `live` (docs/live-activities.md, "Store and cost"), written by the Live Activity engine and by the import.
extension SQLiteConnection {
    /// Raises the stored event version of `id` to at least `version`.
    func raiseEventVersion(_ id: String, to version: Int64) throws {
        try withStatement("""
            INSERT INTO event_versions (id, version) VALUES (?, ?)
            ON CONFLICT (id) DO UPDATE SET version = max(version, excluded.version)
            """) { statement in
            try statement.bind(id, at: 1)
            try statement.bind(version, at: 2)
            try statement.step()
        }
    }

    /// The stored event version of `id`, if any.
    func eventVersion(_ id: String) throws -> Int64? {
        try withStatement("SELECT version FROM event_versions WHERE id = ?") { statement in
            try statement.bind(id, at: 1)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
    }
}
