import Foundation
import PushgateTesting
import Testing

/// What operators install carries no test code: the `pushgate` binary holds no symbol of the
/// fakes, the benchmark drivers or `PushgateTesting`, and `pushgate-dev` holds them (the
/// check the release build must pass, on the debug build's unstripped symbols).
@Suite struct ToolContentsTests {
    /// The symbol names of `program`, from `nm` on the built binary.
    private static func symbols(_ program: PushgateTool.Program) async throws -> [Substring] {
        let outcome = try await onOwnThread {
            try ChildProcess(executable: "/usr/bin/nm", arguments: [program.path]).finish()
        }
        try #require(outcome.status == 0, "nm \(program.path): \(outcome.stderr)")
        return outcome.stdout.split(separator: "\n")
    }

    @Test func pushgateHoldsNoFakeOrBenchCode() async throws {
        let symbols = try await Self.symbols(.pushgate)
        #expect(symbols.contains { $0.contains("IdentityCommand") })
        for word in ["FakeAPNs", "FakeFCM", "Bench", "Soak", "PushgateTesting", "PushgateHost"] {
            #expect(!symbols.contains { $0.contains(word) }, "pushgate holds \(word)")
        }
    }

    @Test func pushgateDevHoldsTheFakesAndTheBench() async throws {
        let symbols = try await Self.symbols(.dev)
        for word in ["FakeAPNs", "FakeFCM", "BenchCommand", "PushgateTesting"] {
            #expect(symbols.contains { $0.contains(word) }, "pushgate-dev lacks \(word)")
        }
    }
}
