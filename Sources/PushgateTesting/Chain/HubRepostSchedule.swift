import Foundation

/// How an agent hub posts again an event the host answered 503 `store_unavailable`
/// (docs/host.md, "Outbox"): after 100 ms, doubling up to 1 s, for at most 60 s from the first
/// post. Shared by the fault suite's hub and the soak's load.
public struct HubRepostSchedule: Sendable {
    public static let firstBackOff: Duration = .milliseconds(100)
    public static let longestBackOff: Duration = .seconds(1)
    /// The longest a hub keeps posting one event again.
    public static let giveUpSeconds = 60

    private let giveUp = ContinuousClock.now + .seconds(Self.giveUpSeconds)
    private var backOff = Self.firstBackOff

    public init() {}

    /// Whether an answer is the host's 503 `store_unavailable`, which a hub posts again.
    public static func isStoreUnavailable(status: Int, error: String?) -> Bool {
        status == 503 && error == "store_unavailable"
    }

    /// Whether a post may still go out (a connection lost to a restart is posted again until then).
    public var isOpen: Bool { ContinuousClock.now < giveUp }

    /// The wait before the next post after a 503 `store_unavailable`; nil when that post would
    /// go out after the give-up time.
    public mutating func nextBackOff() -> Duration? {
        guard ContinuousClock.now + backOff < giveUp else { return nil }
        defer { backOff = min(backOff * 2, Self.longestBackOff) }
        return backOff
    }
}
