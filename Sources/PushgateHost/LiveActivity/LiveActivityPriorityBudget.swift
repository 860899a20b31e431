import PushgateCore
import Synchronization

/// iOS throttles an activity that gets too many priority-10 updates an hour; this counts them
/// per activity over a rolling hour and sends an update that would go at 10 at 5 once the
/// activity had `perHour` of them. An `end` always goes at 10 (it is counted too).
///
/// - Important: docs/live-activities.md "Priority budget" — in memory: a restart forgets the
///   counts, so a restarted host may send one more hour's worth.
final class LiveActivityPriorityBudget: Sendable {
    static let windowMs: Int64 = 3_600_000
    /// Activities listed in the status, the busiest first.
    static let listedActivities = 10

    let perHour: Int
    private let state = Mutex(State())

    private struct State {
        /// Times of the priority-10 pushes within the hour, per activity, oldest first.
        var sends: [String: [Int64]] = [:]
        /// The updates sent at 5 instead, counted per minute (`minute` = ms / 60 000): an hour's
        /// worth of minutes at the most, however many updates the hub causes.
        var demoted: [(minute: Int64, count: Int)] = []

        mutating func noteDemoted(nowMs: Int64) {
            let minute = nowMs / Self.minuteMs
            if let last = demoted.last, last.minute == minute { demoted[demoted.count - 1].count += 1 } else { demoted.append((minute, 1)) }
        }

        /// Forgets the sends at or before `cutoff`, and the minutes that ended by then.
        mutating func dropOlder(than cutoff: Int64) {
            sends = sends.compactMapValues { times in
                let kept = times.drop { $0 <= cutoff }
                return kept.isEmpty ? nil : Array(kept)
            }
            demoted.removeAll { ($0.minute + 1) * Self.minuteMs <= cutoff }
        }

        private static let minuteMs: Int64 = 60_000
    }

    init(perHour: Int) { self.perHour = perHour }

    /// The `apns-priority` of `content` for `activity`, counting a push that goes at 10.
    func priority(of content: LiveActivityContent, activity: String, nowMs: Int64) -> Int {
        guard content.priority == LiveActivityContent.urgentPriority else { return content.priority }
        return state.withLock { state in
            let cutoff = nowMs - Self.windowMs
            let recent = (state.sends[activity] ?? []).drop { $0 <= cutoff }
            if content.event != .end && recent.count >= perHour {
                state.noteDemoted(nowMs: nowMs)
                return LiveActivityContent.routinePriority
            }
            state.sends[activity] = Array(recent) + [nowMs]
            return LiveActivityContent.urgentPriority
        }
    }

    /// How many minutes of demotions are held (for tests: at most an hour's, whatever the rate).
    var demotedMinutesHeld: Int { state.withLock { $0.demoted.count } }

    /// Forgets pushes older than an hour; the expiry sweep calls this every minute.
    func purge(nowMs: Int64) { state.withLock { $0.dropOlder(than: nowMs - Self.windowMs) } }

    /// `{"perHour", "sentLastHour", "demotedLastHour", "activities": [{"activityId", "sentLastHour"}]}`
    /// for `/api/status`: the priority-10 pushes of the last hour in all, the updates sent at 5
    /// because of the budget (by the minute: those of the minute the hour began in count too),
    /// and the busiest activities.
    func status(nowMs: Int64) -> JSONValue {
        let (sends, demoted) = state.withLock { state in
            state.dropOlder(than: nowMs - Self.windowMs)
            return (state.sends.mapValues(\.count), state.demoted.reduce(0) { $0 + $1.count })
        }
        let busiest = sends.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(Self.listedActivities)
        return .object(JSONObject([
            ("perHour", .integer(Int64(perHour))), ("sentLastHour", .integer(Int64(sends.values.reduce(0, +)))),
            ("demotedLastHour", .integer(Int64(demoted))),
            ("activities", .array(busiest.map { .object(JSONObject([("activityId", .string($0.key)),
                                                                     ("sentLastHour", .integer(Int64($0.value)))])) })),
        ]))
    }
}
