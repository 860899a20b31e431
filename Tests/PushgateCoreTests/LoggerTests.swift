@testable import PushgateCore
import Synchronization
import Testing

/// Records below the logger's level are neither written nor built; the others are written
/// with quoted values.
@Suite struct LoggerTests {
    /// Counts how often a record's parts were built.
    private final class BuildCounter: Sendable {
        let count = Atomic<Int>(0)
        func text(_ value: String) -> String {
            count.add(1, ordering: .relaxed)
            return value
        }
    }

    @Test func recordsBelowTheLevelAreNotBuilt() {
        let sink = Logger.MemorySink()
        let logger = Logger(component: "test", minimumLevel: .warning, sink: sink)
        let built = BuildCounter()
        logger.debug(built.text("debug"), ["key": built.text("value")])
        logger.info(built.text("info"), ["key": built.text("value")])
        #expect(built.count.load(ordering: .relaxed) == 0)
        #expect(sink.lines.isEmpty)

        logger.warning(built.text("slow relay"), ["status": built.text("503")])
        logger.error(built.text("store failed"), ["error": built.text("disk full")])
        #expect(built.count.load(ordering: .relaxed) == 4)
        #expect(sink.lines == [
            "level=warning component=test msg=\"slow relay\" status=503",
            "level=error component=test msg=\"store failed\" error=\"disk full\"",
        ])
    }
}
