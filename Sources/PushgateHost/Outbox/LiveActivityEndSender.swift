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

    /// The push a message describes, for `tokens`, with its environment and priority; nil when
    /// the message is not one.
    static func push(_ message: String, tokens: [String]) -> (LiveActivityPush, environment: String, priority: Int)? {
        guard let json = try? JSONValue.parse(message), var object = json.objectValue,
              let environment = json["environment"]?.stringValue, let priority = json["priority"]?.int64Value else { return nil }
        object["tokens"] = .array(tokens.map(JSONValue.string))
        guard let push = try? LiveActivityPush(json: .object(object)) else { return nil }
        return (push, environment, Int(priority))
    }

    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome] {
        var outcomes: [Int64: TokenOutcome] = [:]
        var requests: [(push: LiveActivityPush, environment: String, priority: Int, request: OutboxRequest)] = []
        for request in OutboxRequest.group(entries, maxTokens: LiveActivityPush.tokenCount.upperBound) {
            if let (push, environment, priority) = Self.push(request.message, tokens: request.tokens) {
                requests.append((push, environment, priority, request))
            } else {
                outcomes.merge(request.outcomes([:]).mapValues { _ in .failed(.never) }) { $1 }
            }
        }
        let ready = await transport.prepare(Array(Set(requests.flatMap(\.push.tokens))), kind: .activity)
        for item in requests {
            let tokens = item.push.tokens.filter(ready.contains)
            var delivered: [String: TokenOutcome] = [:]
            if let push = tokens == item.push.tokens ? item.push : try? LiveActivityPush(
                tokens: tokens, event: item.push.event, contentState: item.push.contentState,
                dismissalDate: item.push.dismissalDate, staleDate: item.push.staleDate) {
                delivered = await transport.deliver(push, environment: item.environment, priority: item.priority)
            }
            // The activity is over: its registration is no longer cached (the relay unbinds it after an end).
            await transport.forget(delivered.filter { $0.value == .accepted || $0.value == .dropped }.map(\.key), kind: .activity)
            outcomes.merge(item.request.outcomes(delivered)) { $1 }
        }
        return outcomes
    }
}
