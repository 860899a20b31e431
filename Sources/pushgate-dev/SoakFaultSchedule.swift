import Foundation
import PushgateTesting
import Synchronization

/// The soak's faults: the same in every minute, at the same seconds, all inside the minute's
/// fifth 10-second window (``secondsWithFaults``), so two minutes compare like with like and the
/// first four windows of each minute are calm (``isCalm(windowEndingAt:)``). The relay and host
/// kills come in the first minute only (see ``hasKills(_:)``).
struct SoakFaultSchedule: Sendable {
    /// One fault and the second of the minute it happens at.
    struct Fault: Sendable {
        let second: Int
        let name: String
        let killMinutesOnly: Bool
        let act: @Sendable (SoakChain, HostRestartGate) throws -> Void
    }

    /// The fake's 503 burst for these device tokens.
    let alertTokens: [String]

    var faults: [Fault] {
        let tokens = alertTokens
        return [
            Fault(second: 41, name: "503 burst", killMinutesOnly: false) { chain, _ in try chain.serviceUnavailableBurst(for: tokens) },
            Fault(second: 42, name: "SIGUSR1", killMinutesOnly: false) { chain, _ in chain.fake.child.signal(SIGUSR1) },
            Fault(second: 44, name: "SIGSTOP", killMinutesOnly: false) { chain, _ in chain.fake.child.signal(SIGSTOP) },
            Fault(second: 47, name: "SIGCONT", killMinutesOnly: false) { chain, _ in chain.fake.child.signal(SIGCONT) },
            Fault(second: 48, name: "relay kill -9", killMinutesOnly: true) { chain, _ in try chain.restartRelay() },
            Fault(second: 49, name: "host kill -9", killMinutesOnly: true) { chain, restarts in try chain.restartHost(restarts) },
        ]
    }

    /// The seconds of a minute (1 to 60) that every fault falls in.
    static let secondsWithFaults = 41...49

    /// Whether the 10-second window ending at `second` of the run is free of the faults: none
    /// falls in it, nor in the window before it, which leaves a backlog (the requests that
    /// waited for the stopped fake) that the next window still answers.
    static func isCalm(windowEndingAt second: Int) -> Bool {
        ((second - 19)...second).allSatisfy { !secondsWithFaults.contains(($0 - 1 + 60) % 60 + 1) }
    }

    /// Whether minute `minute` (1-based) has the kills: the first only, the
    /// warm-up, so that minute 2 and the last are one life of each process. A restart between
    /// them gives fresh memory and pools that settle at another size, and the rule would compare
    /// two processes instead of one that ran for the whole time.
    static func hasKills(_ minute: Int) -> Bool { minute == 1 }

    /// Runs the faults of `minutes` minutes from `start` on the calling thread, each at its time;
    /// `noted` gets each fault's name once done. Returns early when `stop` is signalled, leaving
    /// the fake running (SIGCONT). Throws the first fault that failed.
    func run(on chain: SoakChain, restarts: HostRestartGate, from start: ContinuousClock.Instant, minutes: Int,
             stop: DispatchSemaphore, noted: (String) -> Void) throws {
        for minute in 1...minutes {
            for fault in faults where !fault.killMinutesOnly || Self.hasKills(minute) {
                precondition(Self.secondsWithFaults.contains(fault.second), "a fault outside the fault window")
                let due = start + .seconds((minute - 1) * 60 + fault.second)
                if stop.wait(timeout: .now() + ContinuousClock.now.duration(to: due).inSeconds) == .success {
                    chain.fake.child.signal(SIGCONT)
                    return
                }
                try fault.act(chain, restarts)
                noted(fault.name)
            }
        }
    }
}
