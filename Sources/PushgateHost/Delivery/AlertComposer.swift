/// Turns an event and the registered tokens into content-free batches.
///
/// - Important: host.md §5 — title = scenario title in the device's locale, body = trimmed
///   session name (task name for task types) or the localized `session` word, data = only the
///   session id and (a Pushgate extension) the event id; one group per (locale, environment), at most 100 tokens per batch, the same
///   badge on every batch.
public struct AlertComposer: Sendable {
    public let titles: NotificationTitles

    public init(titles: NotificationTitles) { self.titles = titles }

    public func batches(for event: HostEvent, tokens: [AlertToken], badge: Int, tag: String) -> [AlertBatch] {
        var groups: [String: (locale: String, environment: String, tokens: [String])] = [:]
        var order: [String] = []
        var normalized: [String?: String] = [:]
        for token in tokens {
            let locale = normalized[token.locale] ?? titles.normalize(token.locale)
            normalized[token.locale] = locale
            let key = locale + "\u{0}" + token.environment
            if groups[key] == nil {
                groups[key] = (locale, token.environment, [])
                order.append(key)
            }
            groups[key]!.tokens.append(token.token)
        }
        return order.flatMap { key -> [AlertBatch] in
            let group = groups[key]!
            let title = titles.title(event.type.rawValue, locale: group.locale)
            let body = self.body(for: event, locale: group.locale)
            return stride(from: 0, to: group.tokens.count, by: AlertBatch.maxTokens).map { start in
                AlertBatch(tokens: Array(group.tokens[start..<min(start + AlertBatch.maxTokens, group.tokens.count)]),
                           title: title, body: body, badge: badge, tag: tag, environment: group.environment,
                           sessionId: event.sessionId, eventId: event.eventId)
            }
        }
    }

    func body(for event: HostEvent, locale: String) -> String {
        // JavaScript's `trim`, as OpenChamber applies it, without Foundation's bridging per event.
        let name = HapiText.trim((event.type.isTask ? event.taskName : event.sessionName) ?? "")
        return name.isEmpty ? titles.fallbackBody(locale: locale) : name
    }
}
