import PushgateCore

/// Sends content-free alerts again from the outbox: entries with the same message share a
/// batch (at most 100 tokens), registered first and routed by platform as at dispatch.
///
/// The message is the batch without its tokens: title, body, badge, tag, environment, session
/// and event id, so the alert sent again is the one the first try sent (same collapse id). A
/// token's platform is read from the store; one whose platform has no transport now waits.
struct AlertOutboxSender: OutboxSender {
    let store: HostStore
    let routes: AlertRoutes
    let logger: Logger

    /// The entry of `token` for a push of `batch` whose first try failed.
    static func entry(_ batch: AlertBatch, token: String, nowMs: Int64, nextAttemptAtMs: Int64) -> OutboxEntry {
        OutboxEntry(kind: .alert, token: token, eventId: batch.eventId, message: message(batch), createdAtMs: nowMs,
                    nextAttemptAtMs: nextAttemptAtMs)
    }

    static func message(_ batch: AlertBatch) -> String {
        var message = JSONObject([
            ("title", .string(batch.title)), ("body", .string(batch.body)), ("badge", .integer(Int64(batch.badge))),
            ("tag", .string(batch.tag)), ("environment", .string(batch.environment)), ("sessionId", .string(batch.sessionId)),
            ("eventId", .string(batch.eventId)),
        ])
        if let requestId = batch.requestId { message["requestId"] = .string(requestId) }
        if let kind = batch.kind { message["kind"] = .string(kind) }
        for (key, value) in batch.attention.sendFields { message[key] = value }
        return JSONValue.object(message).serialized()
    }

    /// The batch a message describes, for `tokens`; nil when the message is not one. Rows
    /// written before the attention members were kept read as plain alerts.
    static func batch(_ message: String, tokens: [String]) -> AlertBatch? {
        guard let json = try? JSONValue.parse(message), let title = json["title"]?.stringValue, let body = json["body"]?.stringValue,
              let badge = json["badge"]?.int64Value, let tag = json["tag"]?.stringValue,
              let environment = json["environment"]?.stringValue, let sessionId = json["sessionId"]?.stringValue,
              let eventId = json["eventId"]?.stringValue else { return nil }
        let attention = AlertAttention(level: json["interruptionLevel"]?.stringValue.flatMap(AlertAttention.Level.init(rawValue:)),
                                       relevance: json["relevanceScore"]?.doubleValue, category: json["category"]?.stringValue)
        return AlertBatch(tokens: tokens, title: title, body: body, badge: Int(badge), tag: tag, environment: environment,
                          sessionId: sessionId, eventId: eventId, requestId: json["requestId"]?.stringValue,
                          kind: json["kind"]?.stringValue, attention: attention)
    }

    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome] {
        // Unreadable now: every entry waits for the next round.
        guard let stored = try? await store.alertTokens() else { return [:] }
        let known = Dictionary(stored.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        var outcomes: [Int64: TokenOutcome] = [:]
        var batches: [(batch: AlertBatch, request: OutboxRequest)] = []
        // A token the phone removed since is owed nothing; one whose platform has no transport
        // now gets no outcome: it waits, untried.
        for entry in entries where known[entry.token] == nil { outcomes[entry.id] = .failed(.never) }
        let routable = entries.filter { entry in known[entry.token].map { routes.transport(for: $0.platform) != nil } ?? false }
        for request in OutboxRequest.group(routable, maxTokens: AlertBatch.maxTokens) {
            if var batch = Self.batch(request.message, tokens: request.tokens) {
                batch.androidTokens = Set(request.tokens.filter { known[$0]?.platform == .android })
                batches.append((batch, request))
            } else {
                outcomes.merge(request.outcomes([:]).mapValues { _ in .failed(.never) }) { $1 }
            }
        }
        let tokens = Set(batches.flatMap(\.batch.tokens)).compactMap { known[$0] }
        // A batch may leave in two parts (iOS and Android tokens on different transports).
        var delivered = Array(repeating: [String: TokenOutcome](), count: batches.count)
        for (index, _, results) in await routes.deliver(batches.map(\.batch), tokens: tokens) {
            for (token, outcome) in results where outcome == .dropped {
                do {
                    try await store.deleteAlertToken(token)
                } catch {
                    logger.error("a dead token could not be deleted from host.sqlite; it is tried again", ["error": "\(error)"])
                }
            }
            delivered[index].merge(results) { $1 }
        }
        for (index, item) in batches.enumerated() { outcomes.merge(item.request.outcomes(delivered[index])) { $1 } }
        return outcomes
    }
}
