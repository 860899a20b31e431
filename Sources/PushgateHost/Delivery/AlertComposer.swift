import PushgateCore

/// Turns an event and the registered tokens into content-free batches.
///
/// - Important: docs/host.md "Delivery" — title = scenario title in the device's locale, body = trimmed
///   session name (task name for task types) or the localized `session` word, data = identifiers
///   only (``AlertBatch/data``), level, relevance and category by type; one group per (locale, environment), at most 100 tokens per batch, the same
///   badge on every batch; Android tokens get the same title, body and data as iOS tokens of their locale.
public struct AlertComposer: Sendable {
    public let titles: NotificationTitles
    /// `PUSHGATE_TIME_SENSITIVE`: when false, time-sensitive alerts go out as `active`.
    public let timeSensitive: Bool

    public init(titles: NotificationTitles, timeSensitive: Bool = true) {
        self.titles = titles
        self.timeSensitive = timeSensitive
    }

    /// `tokens` grouped by (locale, environment) in the order the groups first appear, iOS
    /// tokens first; an Android token joins the first group of its locale whatever its
    /// environment (FCM has none, and the relay ignores `env` for it), so it shares the iOS
    /// tokens' signed send.
    public func batches(for event: HostEvent, tokens: [AlertToken], badge: Int, tag: String) -> [AlertBatch] {
        var groups: [String: (locale: String, environment: String, tokens: [String], android: Set<String>)] = [:]
        var order: [String] = []
        var firstOfLocale: [String: String] = [:]
        var normalized: [String?: String] = [:]
        func place(_ token: AlertToken) {
            let locale = normalized[token.locale] ?? titles.normalize(token.locale)
            normalized[token.locale] = locale
            let key = token.platform == .android ? firstOfLocale[locale] ?? locale + "\u{0}" + token.environment
                : locale + "\u{0}" + token.environment
            if groups[key] == nil {
                groups[key] = (locale, token.environment, [], [])
                order.append(key)
                if firstOfLocale[locale] == nil { firstOfLocale[locale] = key }
            }
            groups[key]!.tokens.append(token.token)
            if token.platform == .android { groups[key]!.android.insert(token.token) }
        }
        for token in tokens where token.platform == .ios { place(token) }
        for token in tokens where token.platform == .android { place(token) }
        let attention = event.type.attention(timeSensitive: timeSensitive)
        return order.flatMap { key -> [AlertBatch] in
            let group = groups[key]!
            let title = titles.title(event.type.rawValue, locale: group.locale)
            let body = self.body(for: event, locale: group.locale)
            return stride(from: 0, to: group.tokens.count, by: AlertBatch.maxTokens).map { start in
                let slice = Array(group.tokens[start..<min(start + AlertBatch.maxTokens, group.tokens.count)])
                return AlertBatch(tokens: slice, androidTokens: group.android.isEmpty ? [] : group.android.intersection(slice), title: title, body: body,
                                  badge: badge, tag: tag, environment: group.environment, sessionId: event.sessionId,
                                  eventId: event.eventId, requestId: event.requestId, kind: event.type.rawValue, attention: attention)
                    .fittingAPNsPayload()
            }
        }
    }

    /// Background dismissals of `collapseIds` for `tokens`: one batch per environment, at most
    /// 100 tokens each (docs/host.md, "Dismissal").
    func dismissals(_ collapseIds: [String], tokens: [AlertToken]) -> [AlertBatch] {
        // A tag made of a session id with a line break in it cannot be listed; the rest can.
        let collapseIds = collapseIds.filter { APNsPayload.isDismissible(collapseId: $0) }
        guard !collapseIds.isEmpty else { return [] }
        var groups: [String: [AlertToken]] = [:]
        var order: [String] = []
        for token in tokens {
            // FCM has no environment: an Android token joins the first group.
            let environment = token.platform == .android ? order.first ?? token.environment : token.environment
            if groups[environment] == nil { order.append(environment) }
            groups[environment, default: []].append(token)
        }
        return order.flatMap { environment -> [AlertBatch] in
            let group = groups[environment]!
            return stride(from: 0, to: group.count, by: AlertBatch.maxTokens).map { start in
                let slice = group[start..<min(start + AlertBatch.maxTokens, group.count)]
                return AlertBatch(tokens: slice.map(\.token), androidTokens: Set(slice.filter { $0.platform == .android }.map(\.token)),
                                  title: "", body: "", badge: 0, tag: "", environment: environment, sessionId: "", eventId: "",
                                  dismissCollapseIds: collapseIds)
            }
        }
    }

    /// The trimmed session (or task) name, within the relay's body cap.
    func body(for event: HostEvent, locale: String) -> String {
        // JavaScript's `trim`, as OpenChamber applies it, without Foundation's bridging per event.
        let name = HapiText.trim((event.type.isTask ? event.taskName : event.sessionName) ?? "")
        return name.isEmpty ? titles.fallbackBody(locale: locale) : HapiText.clipBytes(name, AlertBatch.maxBodyBytes)
    }
}
