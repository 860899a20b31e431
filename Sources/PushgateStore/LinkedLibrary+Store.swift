internal import CLibPQ
internal import CSQLite
import PushgateCore

extension LinkedLibrary {
    /// The libraries of `PushgateStore`: SQLite and libpq.
    public static var store: [LinkedLibrary] {
        // PQlibVersion is major × 10 000 + minor since PostgreSQL 10.
        let libpq = PQlibVersion()
        return [LinkedLibrary(name: "SQLite", version: String(cString: sqlite3_libversion())),
                LinkedLibrary(name: "libpq", version: "\(libpq / 10_000).\(libpq % 10_000)")]
    }
}
