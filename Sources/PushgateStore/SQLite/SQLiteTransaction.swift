/// How a transaction takes its lock (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
public enum SQLiteTransactionKind: String, Sendable {
    /// Locks on first use; a read that later writes may fail with `SQLITE_BUSY`.
    case deferred = "DEFERRED"
    /// Takes the write lock at once; the right choice for read-modify-write work.
    case immediate = "IMMEDIATE"
    /// Like immediate; in WAL mode the same.
    case exclusive = "EXCLUSIVE"
}

extension SQLiteConnection {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it or the commit throws.
    ///
    /// The first error is the one thrown. If the rollback fails too, its failure is attached
    /// to that error (``SQLiteError/rollbackFailure``) when it is a ``SQLiteError``; an error
    /// of another type is rethrown unchanged.
    public func transaction<R>(_ kind: SQLiteTransactionKind = .deferred, _ body: () throws -> R) throws -> R {
        try execute("BEGIN \(kind.rawValue)")
        let value: R
        do {
            value = try body()
            try execute("COMMIT")
        } catch {
            if let rollbackError = failure(executing: "ROLLBACK"), let original = error as? SQLiteError {
                throw original.attachingRollbackFailure(rollbackError)
            }
            throw error
        }
        return value
    }
}
