import PushgateCore

/// Sends content-free alerts again from the outbox: entries with the same message share a
/// batch (at most 100 tokens), registered first as at dispatch.
///
/// The message is the batch without its tokens: title, body, badge, tag, environment, session
/// and event id, so the alert sent again is the one the first try sent (same collapse id).
struct AlertOutboxSender: OutboxSender {
    let store: HostStore
    let transport: any AlertTransport

    /// The entry of `token` for a push of `batch` whose first try failed; nil when not retryable.
    static func entry(_ batch: AlertBatch, token: String, nowMs: Int64, nextAttemptAtMs: Int64) -> OutboxEntry {
        OutboxEntry(kind: .alert, token: token, eventId: batch.eventId, message: message(batch), createdAtMs: nowMs,
                    nextAttemptAtMs: nextAttemptAtMs)
    }

    static func message(_ batch: AlertBatch) -> String {
        JSONValue.object(JSONObject([
            ("title", .string(batch.title)), ("body", .string(batch.body)), ("badge", .integer(Int64(batch.badge))),
            ("tag", .string(batch.tag)), ("environment", .string(batch.environment)), ("sessionId", .string(batch.sessionId)),
            ("eventId", .string(batch.eventId)),
        ])).serialized()
    }

    /// The batch a message describes, for `tokens`; nil when the message is not one.
    static func batch(_ message: String, tokens: [String]) -> AlertBatch? {
        guard let json = try? JSONValue.parse(message), let title = json["title"]?.stringValue, let body = json["body"]?.stringValue,
              let badge = json["badge"]?.int64Value, let tag = json["tag"]?.stringValue,
              let environment = json["environment"]?.stringValue, let sessionId = json["sessionId"]?.stringValue,
              let eventId = json["eventId"]?.stringValue else { return nil }
        return AlertBatch(tokens: tokens, title: title, body: body, badge: Int(badge), tag: tag, environment: environment,
                          sessionId: sessionId, eventId: eventId)
    }

    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome] {
        var outcomes: [Int64: TokenOutcome] = [:]
        // A token the phone removed since is owed nothing.
        let known = Set(((try? await store.alertTokens()) ?? []).map(\.token))
        var groups: [String: [OutboxEntry]] = [:]
        for entry in entries {
            if known.contains(entry.token) { groups[entry.message, default: []].append(entry) } else { outcomes[entry.id] = .failed(.never) }
        }
        var batches: [(batch: AlertBatch, ids: [String: [Int64]])] = []
        for (message, members) in groups {
            for start in stride(from: 0, to: members.count, by: AlertBatch.maxTokens) {
                let slice = members[start..<min(start + AlertBatch.maxTokens, members.count)]
                var ids: [String: [Int64]] = [:]
                for entry in slice { ids[entry.token, default: []].append(entry.id) }
                guard let batch = Self.batch(message, tokens: Array(ids.keys)) else {
                    for entry in slice { outcomes[entry.id] = .failed(.never) }
                    continue
                }
                batches.append((batch, ids))
            }
        }
        let ready = await transport.prepare(Array(Set(batches.flatMap(\.batch.tokens))))
        let results = await forEachConcurrently(batches, limit: 4) { [transport] item in
            var batch = item.batch
            batch.tokens = batch.tokens.filter(ready.contains)
            return (item, batch.tokens.isEmpty ? [:] : await transport.deliver(batch))
        }
        for (item, delivered) in results {
            for (token, ids) in item.ids {
                let outcome = delivered[token] ?? .failed(.later)
                if outcome == .dropped { _ = try? await store.deleteAlertToken(token) }
                for id in ids { outcomes[id] = outcome }
            }
        }
        return outcomes
    }
}
