internal import CLibPQ

/// One statement's result (`PGresult`), cleared when released. Values are text, as the
/// connection asks for text results.
public final class PostgreSQLResult {
    private let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// Rows returned.
    public var rowCount: Int { Int(PQntuples(handle)) }

    /// Columns per row.
    public var columnCount: Int { Int(PQnfields(handle)) }

    /// Rows inserted, updated or deleted by the statement (0 for any other statement).
    public var changedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The command tag (`COMMIT`, `ROLLBACK`, `INSERT 0 1`, …).
    public var commandTag: String { String(cString: PQcmdStatus(handle)) }

    /// The value at `row` and `column` (both from 0) as text, or `nil` when NULL or out of range.
    public func string(row: Int, column: Int) -> String? {
        guard row >= 0, row < rowCount, column >= 0, column < columnCount else { return nil }
        let (row, column) = (Int32(row), Int32(column))
        guard PQgetisnull(handle, row, column) == 0, let value = PQgetvalue(handle, row, column) else { return nil }
        let count = Int(PQgetlength(handle, row, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }
}

// Belongs to its connection's thread of use.
@available(*, unavailable)
extension PostgreSQLResult: Sendable {}
