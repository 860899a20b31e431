import Testing
@testable import PushgateStore

extension StoreDatabase {
    /// Opens a gateway store on the database; each call opens another, as another relay
    /// instance on the same database would.
    func openGateway() async throws -> any GatewayStore {
        switch engine {
        case .sqlite: try await SQLiteGatewayStore.open(path: location)
        case .postgreSQL: try await PostgreSQLGatewayStore.open(url: PostgreSQLURL(location))
        }
    }

    /// Opens `count` gateway stores on the database, runs `body` with them, then closes them.
    func withGatewayStores(_ count: Int, _ body: ([any GatewayStore]) async throws -> Void) async throws {
        var stores: [any GatewayStore] = []
        do {
            for _ in 0 ..< count { stores.append(try await openGateway()) }
            try await body(stores)
        } catch {
            for store in stores { try? await store.close() }
            throw error
        }
        for store in stores { try await store.close() }
    }

    /// The number a `SELECT count(*) …` returns, read on a separate connection.
    func count(_ sql: String) async throws -> Int {
        Int(try await withConnection { try $0.integer(sql, []) } ?? -1)
    }

    /// Returns once no session holds the lock of a holder named in the outbox (PostgreSQL; a
    /// SQLite file has no sessions): the server ends a closed store's sessions a moment after
    /// the store let go of them. Fails after 10 s.
    func waitUntilOutboxHoldersEnded() async throws {
        guard engine == .postgreSQL else { return }
        try await withConnection { connection in
            try connection.execute("SET lock_timeout = '10s'")
            for holder in try connection.texts("SELECT DISTINCT holder FROM push_outbox", []).compactMap({ Int64($0) }) {
                // Granted once no session holds the holder's shared lock; released at commit.
                try connection.writeTransaction { _ = try connection.texts("SELECT pg_advisory_xact_lock(?1)::text", [.integer(holder)]) }
            }
        }
    }
}

extension GatewaySendAdmission {
    /// The send id of an admission, `nil` for a refusal.
    var sendId: String? {
        guard case .admitted(let sendId) = self else { return nil }
        return sendId
    }
}

extension StoreEngine {
    /// Runs `body` with a gateway store on a fresh database, then closes the store.
    func withGatewayStore(_ body: (any GatewayStore, StoreDatabase) async throws -> Void) async throws {
        let database = try await makeDatabase()
        try await database.withGatewayStores(1) { stores in try await body(stores[0], database) }
    }
}
