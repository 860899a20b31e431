/// How a fake provider keeps the requests it answers.
public enum FakeProviderRecording: Sendable {
    /// Keep every record in memory (tests that inspect requests).
    case full
    /// Keep only the counters (benchmarks, long command-line runs).
    case countersOnly
}
