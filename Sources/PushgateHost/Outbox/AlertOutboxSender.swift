import PushgateCore

/// Sends content-free alerts again from the outbox: entries with the same message share a
/// batch (at most 100 tokens), registered first as at dispatch.
///
/// The message is the batch without its tokens: title, body, badge, tag, environment, session
/// and event id, so the alert sent again is the one the first try sent (same collapse id).
struct AlertOutboxSender: OutboxSender {
    let store: HostStore
    let transport: any AlertTransport
    let logger: Logger

    /// The entry of `token` for a push of `batch` whose first try failed.
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
        // Unreadable now: every entry waits for the next round.
        guard let tokens = try? await store.alertTokens() else { return [:] }
        let known = Set(tokens.map(\.token))
        var outcomes: [Int64: TokenOutcome] = [:]
        var batches: [(batch: AlertBatch, request: OutboxRequest)] = []
        // A token the phone removed since is owed nothing.
        for entry in entries where !known.contains(entry.token) { outcomes[entry.id] = .failed(.never) }
        for request in OutboxRequest.group(entries.filter { known.contains($0.token) }, maxTokens: AlertBatch.maxTokens) {
            if let batch = Self.batch(request.message, tokens: request.tokens) {
                batches.append((batch, request))
            } else {
                outcomes.merge(request.outcomes([:]).mapValues { _ in .failed(.never) }) { $1 }
            }
        }
        let ready = await transport.prepare(Array(Set(batches.flatMap(\.batch.tokens))))
        let results = await forEachConcurrently(batches, limit: 4) { [transport] item in
            var batch = item.batch
            batch.tokens.removeAll { !ready.contains($0) }
            return (item.request, batch.tokens.isEmpty ? [:] : await transport.deliver(batch))
        }
        for (request, delivered) in results {
            for (token, outcome) in delivered where outcome == .dropped {
                do {
                    try await store.deleteAlertToken(token)
                } catch {
                    logger.error("a dead token could not be deleted from host.sqlite; it is tried again", ["error": "\(error)"])
                }
            }
            outcomes.merge(request.outcomes(delivered)) { $1 }
        }
        return outcomes
    }
}
