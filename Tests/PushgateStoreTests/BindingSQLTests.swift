import Testing
@testable import PushgateStore

@Suite struct BindingSQLTests {
    /// No statement may scan the bindings table: each write must cost the same at 100 000
    /// bindings as at 10.
    @Test(arguments: BindingSQL.all)
    func usesThePrimaryKeyNeverAFullScan(sql: String) throws {
        let connection = try SQLiteConnection(path: SQLiteConnection.memoryPath)
        try Migrator.migrate(connection, with: RelaySchema.migrations)
        let plan = try connection.withStatement("EXPLAIN QUERY PLAN " + sql) { statement in
            var details: [String] = []
            while try statement.step() { details.append(statement.string(at: 3) ?? "") }
            return details
        }
        let scans = plan.filter { $0.hasPrefix("SCAN") }
        #expect(scans.isEmpty, "\(plan)")
    }
}
