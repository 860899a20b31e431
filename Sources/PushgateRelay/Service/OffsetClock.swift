import PushgateCore

/// A wall clock shifted by a fixed offset (`TEST_CLOCK_OFFSET_MS`), so a test can run the real
/// relay days ahead: binding TTLs and protection windows then pass without waiting.
struct OffsetClock: WallClock {
    let base: any WallClock
    let offsetMs: Int64

    init(_ base: any WallClock, offsetMs: Int64) {
        self.base = base
        self.offsetMs = offsetMs
    }

    var nowMilliseconds: Int64 { base.nowMilliseconds + offsetMs }
}
