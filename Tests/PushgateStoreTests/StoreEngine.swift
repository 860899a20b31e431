import PushgateTesting
import Testing
@testable import PushgateStore

/// The binding store implementations the behavioural tests run against.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgreSQL

    var testDescription: String { rawValue }

    /// A fresh, empty database of this engine: a SQLite file in a temporary directory, or a
    /// new database on the test PostgreSQL server (the test is skipped when PostgreSQL is
    /// not installed), with an English collation as production databases often have.
    func makeDatabase() async throws -> StoreDatabase {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory()
            return StoreDatabase(engine: self, location: directory.file("relay.sqlite"), directory: directory)
        case .postgreSQL:
            let url = try await PostgreSQLTestServer.required().createDatabase(icuLocale: "en-US")
            return StoreDatabase(engine: self, location: url, directory: nil)
        }
    }

    /// Runs `body` with a store on a fresh database, then closes the store; the database lives
    /// until then.
    func withStore(policy: BindingPolicy = .permissive(),
                   _ body: (any BindingStore, StoreDatabase) async throws -> Void) async throws {
        let database = try await makeDatabase()
        let store = try await database.open(policy: policy)
        do {
            try await body(store, database)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        withExtendedLifetime(database) {}
    }
}

/// One empty database for a test: opens stores on it and gives a separate connection to look
/// at it directly.
final class StoreDatabase {
    let engine: StoreEngine
    /// The SQLite file path or the PostgreSQL URL.
    let location: String
    private let directory: TemporaryDirectory?

    init(engine: StoreEngine, location: String, directory: TemporaryDirectory?) {
        self.engine = engine
        self.location = location
        self.directory = directory
    }

    /// Opens a store on the database (a new one each call; several may be open at once).
    func open(policy: BindingPolicy = .permissive()) async throws -> any BindingStore {
        switch engine {
        case .sqlite: try await SQLiteBindingStore.open(path: location, policy: policy)
        case .postgreSQL: try await PostgreSQLBindingStore.open(url: PostgreSQLURL(location), policy: policy)
        }
    }

    /// Write transactions `store` committed.
    func commitCount(of store: any BindingStore) -> Int {
        switch store {
        case let sqlite as SQLiteBindingStore: sqlite.commitCount
        case let postgreSQL as PostgreSQLBindingStore: postgreSQL.commitCount
        default: 0
        }
    }

    /// Runs `body` on a separate connection of its own, on a thread of its own.
    func withConnection<R: Sendable>(_ body: @escaping @Sendable (any StoreConnection) throws -> R) async throws -> R {
        let (engine, location) = (engine, location)
        return try await onOwnThread {
            switch engine {
            case .sqlite: return try body(SQLiteConnection(path: location))
            case .postgreSQL:
                return try body(PostgreSQLConnection(url: PostgreSQLURL(location),
                                                     session: .init(writeLockKey: PostgreSQLSchema.bindingsLockKey)))
            }
        }
    }
}

extension BindingPolicy {
    /// Caps out of the way, for tests of the other binding rules.
    static func permissive(maxTokens: Int = 100_000) -> BindingPolicy {
        BindingPolicy(maxTokens: maxTokens, maxTokensPerHost: 100_000, protectMs: 0, newBindingsPerDay: 1_000)
    }
}
