import Dispatch
import Synchronization

/// Which P-256 public keys may hold a precomputed verification table (``P256KeyTable``), which
/// halves the cost of each verification but takes about 150 KiB and about as much CPU to build
/// as 350 verifications: a key earns one after `threshold` verifications, and at most
/// `maxTables` tables exist at a time under one budget.
public final class P256TableBudget: Sendable {
    /// No tables: every verification takes OpenSSL's general path.
    public static let none = P256TableBudget(maxTables: 0, threshold: .max)

    /// Tables allowed at once.
    public let maxTables: Int
    /// Verifications after which a key's table is built (on `queue`).
    public let threshold: Int
    /// Where tables are built, off the verifying thread.
    let queue: DispatchQueue
    private let live = Atomic<Int>(0)

    public init(maxTables: Int, threshold: Int, queue: DispatchQueue = .global(qos: .utility)) {
        precondition(maxTables >= 0 && threshold > 0)
        self.maxTables = maxTables
        self.threshold = threshold
        self.queue = queue
    }

    /// Tables built under this budget and still alive.
    var tablesInUse: Int { live.load(ordering: .relaxed) }

    /// Takes a place for one table, or `false` when all are taken.
    func reserve() -> Bool {
        var current = live.load(ordering: .relaxed)
        while current < maxTables {
            let (exchanged, original) = live.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back a place taken by ``reserve()``.
    func release() { live.subtract(1, ordering: .relaxed) }
}
