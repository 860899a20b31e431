import Testing
@testable import pushgate_dev

@Suite struct SoakVerdictTests {
    private func sample(_ second: Int, p99: Double, rss: Int = 40_000) -> SoakSample {
        SoakSample(second: second, requestsPerSecond: 1_000, eventP99Ms: p99, hostRSSKiB: rss, hostDescriptors: 60,
                   relayRSSKiB: rss, relayDescriptors: 64, outboxDepth: 0, resent: 0, faults: [])
    }

    /// The faults fall in seconds 41–49: the windows ending at 50 and 60 hold them and their backlog.
    @Test func theFirstFourWindowsOfEveryMinuteAreCalm() {
        #expect([10, 20, 30, 40, 70, 100, 580].allSatisfy { SoakFaultSchedule.isCalm(windowEndingAt: $0) })
        #expect(![50, 60, 110, 120, 590, 600].contains { SoakFaultSchedule.isCalm(windowEndingAt: $0) })
    }

    /// The stall windows do not decide the p99, and its noise is allowed; memory has no allowance.
    @Test func theP99IgnoresStallWindowsAndMemoryGetsNoAllowance() {
        let stalls = [50: 2_960.0, 60: 1_500.0]
        func minute(_ n: Int, calmP99: Double, rss: Int) -> [SoakSample] {
            (1...6).map { window in
                let second = (n - 1) * 60 + window * 10
                return sample(second, p99: stalls[window * 10] ?? calmP99, rss: rss)
            }
        }
        let steady = SoakVerdict(samples: minute(2, calmP99: 8, rss: 40_000) + minute(3, calmP99: 13, rss: 44_000), minutes: 3)
        #expect(steady.judgements.map(\.passed) == [true, true, true, true, true], "8.8 + 5 ms allows 13 ms; 44 000 KiB is 1.1 ×")
        let grown = SoakVerdict(samples: minute(2, calmP99: 8, rss: 40_000) + minute(3, calmP99: 14, rss: 44_100), minutes: 3)
        #expect(grown.judgements.map(\.passed) == [false, true, false, true, false])
    }
}
