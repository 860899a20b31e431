import Foundation

/// One libFuzzer target: its name (also its seed directory, `Fixtures/fuzz/<name>/`) and what it
/// does with one input. A target stops the process (a Swift runtime trap or a failed
/// `precondition`) when an input breaks the code or one of the invariants it checks.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable (UnsafeBufferPointer<UInt8>) -> Void

    init(_ name: String, run: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void) {
        self.name = name
        self.run = run
    }

    /// Every target, in the order `Scripts/fuzz all` runs them.
    static let all: [FuzzTarget] = [JSONTarget.target, JWKTarget.target] + RelayRequestTargets.all
        + [HapiPushTarget.target, HapiTargets.envelope, HapiTargets.device]
        + GatewayTargets.all + [HostEventTarget.target, HTTP2ClientTarget.target]

    static let environmentKey = "PUSHGATE_FUZZ_TARGET"

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The target this process runs, read once from the environment.
    static let selected: FuzzTarget? = ProcessInfo.processInfo.environment[environmentKey].flatMap(named)
}
