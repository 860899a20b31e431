import Testing
@testable import PushgateStore
import PushgateTestSupport

/// `PostgreSQLURL`: what it accepts, and that no printed form holds the password.
@Suite(.hangLimit(.minutes(1))) struct PostgreSQLURLTests {
    private let secret = "s3cr%40t-PW"

    @Test func printsWithoutThePassword() throws {
        let url = try PostgreSQLURL("postgres://relay:\(secret)@db.example:5432/pushgate?sslmode=require")
        #expect(url.redacted == "postgres://relay:***@db.example:5432/pushgate?sslmode=require")
        #expect(url.password == "s3cr@t-PW")
        var dumped = ""
        dump(url, to: &dumped)
        for text in ["\(url)", String(reflecting: url), dumped] {
            #expect(!text.contains("s3cr"), "\(text)")
        }
    }

    @Test func aPasswordParameterIsRedactedToo() throws {
        let url = try PostgreSQLURL("postgresql://relay@db.example/pushgate?password=\(secret)&application_name=x")
        #expect(url.redacted == "postgresql://relay@db.example/pushgate?password=***&application_name=x")
        #expect(url.scrub("auth failed for s3cr@t-PW and \(secret)") == "auth failed for *** and ***")
    }

    @Test func aURLWithoutAPasswordIsUnchanged() throws {
        #expect(try PostgreSQLURL("postgres://relay@127.0.0.1:6543/pushgate").redacted == "postgres://relay@127.0.0.1:6543/pushgate")
        #expect(try PostgreSQLURL("postgresql:///pushgate?host=/run/postgresql").password == nil)
    }

    @Test(arguments: [
        ("mysql://relay:PASSWORD-1@db/pushgate", "not a postgres://"),
        ("postgres://relay:PASSWORD-1@db:notaport/pushgate", "port"),
        ("postgres://relay:PASSWORD-1@db:70000/pushgate", "port"),
        ("postgres://relay:PASSWORD-1@db/pushgate?nosuchoption=1", "nosuchoption"),
        ("postgres://relay:PASSWORD-1%zz@db/pushgate", "percent"),
        ("postgres://relay@db/pushgate?password=PASSWORD-1%zz", "percent"),
    ])
    func refusesBadURLsWithoutQuotingThePassword(url: String, reason: String) throws {
        let error = try #require(throws: PostgreSQLError.self) { try PostgreSQLURL(url) }
        #expect(error.description.contains(reason), "\(error)")
        #expect(!error.description.contains("PASSWORD-1"), "\(error)")
    }

    @Test func sharedStatementsReadTheirNumberedParametersAsDollarParameters() {
        #expect(PostgreSQLConnection.dollarParameters("UPDATE t SET a = ?12 WHERE b = ?1 AND c = '?'")
            == "UPDATE t SET a = $12 WHERE b = $1 AND c = '?'")
    }
}
