import Foundation
import Testing

/// How large each scenario is. Short by default, so `Scripts/test` runs the whole target well
/// within its per-target limit; full with `PUSHGATE_FAULTS=full` (`Scripts/faults`).
struct FaultSizes: Sendable {
    let devices: Int
    let events: Int
    /// Events posted at once. A burst, not one event after another; `window × devices` stays
    /// within the relay's provider gate (64 in flight, as many waiting), so the gate itself
    /// refuses nothing.
    let window: Int
    /// How long the host's outbox may take to empty after the last answer: its retries wait
    /// 1, 2, 4, 8… s (less jitter), so a push that failed four times in a row is tried again
    /// within 15 s of its first failure.
    let drainSeconds: Double
    let timeLimit: TimeLimitTrait.Duration

    static let short = FaultSizes(devices: 10, events: 30, window: 4, drainSeconds: 30, timeLimit: .minutes(1))
    static let full = FaultSizes(devices: 20, events: 300, window: 4, drainSeconds: 60, timeLimit: .minutes(3))

    static let current = ProcessInfo.processInfo.environment["PUSHGATE_FAULTS"] == "full" ? full : short
}
