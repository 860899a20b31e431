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
}

extension StoreEngine {
    /// Runs `body` with a gateway store on a fresh database, then closes the store.
    func withGatewayStore(_ body: (any GatewayStore, StoreDatabase) async throws -> Void) async throws {
        let database = try await makeDatabase()
        try await database.withGatewayStores(1) { stores in try await body(stores[0], database) }
    }
}
