import PushgateCore

/// Sends Live Activity `end` pushes again from the outbox. An end that failed for a passing
/// reason leaves the engine as an accepted one does (its token is removed, so no tick sends it
/// again): the outbox is the one mechanism that retries it, and updates stay with the engine's
/// tick (docs/host.md, "Outbox").
///
/// The message is the push without its tokens, with the environment and priority it went out
/// with; entries with the same message share a request (at most 100 tokens).
struct LiveActivityEndSender: OutboxSender {
    let transport: any LiveActivityTransport

    /// The entry of `token` for an end push whose first try failed.
    static func entry(_ push: LiveActivityPush, token: String, environment: String, priority: Int, nowMs: Int64,
                      nextAttemptAtMs: Int64) -> OutboxEntry {
        var object = push.json
        object["tokens"] = nil
        object["environment"] = .string(environment)
        object["priority"] = .integer(Int64(priority))
        return OutboxEntry(kind: .liveActivityEnd, token: token, eventId: "", message: JSONValue.object(object).serialized(),
                           createdAtMs: nowMs, nextAttemptAtMs: nextAttemptAtMs)
    }

    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome] {
        var outcomes: [Int64: TokenOutcome] = [:]
        var groups: [String: [OutboxEntry]] = [:]
        for entry in entries { groups[entry.message, default: []].append(entry) }
        var requests: [(push: LiveActivityPush, environment: String, priority: Int, ids: [String: [Int64]])] = []
        for (message, members) in groups {
            for start in stride(from: 0, to: members.count, by: LiveActivityPush.tokenCount.upperBound) {
                let slice = members[start..<min(start + LiveActivityPush.tokenCount.upperBound, members.count)]
                var ids: [String: [Int64]] = [:]
                for entry in slice { ids[entry.token, default: []].append(entry.id) }
                guard let json = try? JSONValue.parse(message), var object = json.objectValue,
                      let environment = json["environment"]?.stringValue, let priority = json["priority"]?.int64Value else {
                    for entry in slice { outcomes[entry.id] = .failed(.never) }
                    continue
                }
                object["tokens"] = .array(ids.keys.map(JSONValue.string))
                guard let push = try? LiveActivityPush(json: .object(object)) else {
                    for entry in slice { outcomes[entry.id] = .failed(.never) }
                    continue
                }
                requests.append((push, environment, Int(priority), ids))
            }
        }
        let ready = await transport.prepare(Array(Set(requests.flatMap(\.push.tokens))))
        for request in requests {
            let tokens = request.push.tokens.filter(ready.contains)
            let push = tokens == request.push.tokens ? request.push : try? LiveActivityPush(
                tokens: tokens, event: request.push.event, contentState: request.push.contentState,
                dismissalDate: request.push.dismissalDate, staleDate: request.push.staleDate)
            var delivered: [String: TokenOutcome] = [:]
            if let push { delivered = await transport.deliver(push, environment: request.environment, priority: request.priority) }
            var over: [String] = []
            for (token, ids) in request.ids {
                let outcome = delivered[token] ?? .failed(.later)
                if outcome == .accepted || outcome == .dropped { over.append(token) }
                for id in ids { outcomes[id] = outcome }
            }
            // The activity is over: its registration is no longer cached (the relay unbinds it after an end).
            await transport.forget(over)
        }
        return outcomes
    }
}
