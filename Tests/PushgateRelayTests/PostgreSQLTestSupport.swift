import PushgateTesting
import Testing

extension PostgreSQLTestServer {
    /// The test process's PostgreSQL server; cancels (skips) the current test or test case
    /// when the PostgreSQL server binaries are not installed, and only then.
    static func required() async throws -> PostgreSQLTestServer {
        guard let server = try await shared() else {
            try Test.cancel("PostgreSQL server binaries not installed (Scripts/bootstrap installs them)")
        }
        return server
    }
}
