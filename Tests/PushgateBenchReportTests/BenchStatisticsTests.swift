import Testing
@testable import PushgateBenchReport

@Suite struct BenchStatisticsTests {
    private func rounds(_ values: [(Double, Double)]) -> [Round] {
        values.map { ["a": Figure($0.0, "x/s"), "b": Figure($0.1, "x/s")] }
    }

    @Test func medianOfAnOddCountIsTheMiddleValue() {
        #expect(BenchStatistics.median([3]) == 3)
        #expect(BenchStatistics.median([5, 1, 3]) == 3)
        #expect(BenchStatistics.median([9, 2, 7, 1, 8]) == 7)
    }

    @Test func medianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
        #expect(BenchStatistics.median([4, 1]) == 2.5)
        #expect(BenchStatistics.median([10, 2, 8, 4]) == 6)
    }

    @Test func ratiosArePerRoundInRoundOrder() throws {
        let ratios = try BenchStatistics.ratios(rounds([(90, 100), (60, 50), (30, 40)]), "a", over: "b")
        #expect(ratios == [0.9, 1.2, 0.75])
        #expect(BenchStatistics.median(ratios) == 0.9)
    }

    @Test func aMissingFigureIsAnErrorNamingIt() {
        #expect(throws: BenchReportError("a round has no figure c")) {
            try BenchStatistics.ratios(rounds([(1, 2)]), "a", over: "c")
        }
    }

    @Test func bestRoundIsTheHighestOrTheLowest() throws {
        let series = rounds([(5, 1), (9, 2), (7, 3)])
        #expect(try BenchStatistics.bestRound(series, by: "a")["b"]?.value == 2)
        #expect(try BenchStatistics.bestRound(series, by: "a", lowerIsBetter: true)["b"]?.value == 1)
    }

    @Test func medianRoundOfAnEvenCountIsTheUpperMiddle() throws {
        #expect(try BenchStatistics.medianRound(rounds([(5, 1), (9, 2), (7, 3)]), by: "a")["b"]?.value == 3)
        #expect(try BenchStatistics.medianRound(rounds([(4, 1), (1, 2), (3, 3), (2, 4)]), by: "a")["b"]?.value == 3)
    }

    @Test func aGoalOnTheMedianIgnoresOneBadRound() {
        let goal = Goal("< 200 µs (median)", .below(200), judged: .median)
        #expect(goal.isMet(by: [190, 260, 199]))
        #expect(!goal.isMet(by: [190, 260, 200]))
        #expect(!goal.isMet(by: []))
    }

    @Test func aGoalOnEveryRoundFailsOnOne() {
        let goal = Goal("none", .equal(0), judged: .everyRound)
        #expect(goal.isMet(by: [0, 0, 0]))
        #expect(!goal.isMet(by: [0, 1, 0]))
    }

    @Test func aGoalOnTheShownValueJudgesIt() {
        let goal = BenchGoals.goal("apns.pushes_per_second")
        #expect(goal.isMet(by: [30_000]))
        #expect(!goal.isMet(by: [29_999.5]))
        let ratio = BenchGoals.goal("apns.client_process_cpu_per_push/h2load.cpu_per_push")
        #expect(ratio.isMet(by: [2.4, 2.0, 1.5]))
        #expect(!ratio.isMet(by: [2.4, 2.1, 1.5]))
    }

    @Test func numbersAreGroupedWholeOrTwoDecimals() {
        #expect(BenchNumber.count(12_751.4) == "12 751")
        #expect(BenchNumber.count(1_234_567) == "1 234 567")
        #expect(BenchNumber.count(999.5) == "1 000")
        #expect(BenchNumber.count(0.4) == "0")
        #expect(BenchNumber.count(-4_321) == "-4 321")
        #expect(BenchNumber.number(14.334) == "14.33")
        #expect(BenchNumber.number(99.994) == "99.99")
        #expect(BenchNumber.number(224.2) == "224")
    }
}
