/// Which transport carries the alert tokens of each platform: iOS tokens by
/// `PUSHGATE_IOS_PUSH`, Android (FCM) tokens by `PUSHGATE_ANDROID_ALERT_PUSH` (docs/host.md,
/// "Android alert tokens"). When both go through the relay they share one transport, so a
/// batch's iOS and Android tokens leave in one signed send.
public struct AlertRoutes: Sendable {
    /// How many requests one delivery has in flight at once.
    static let concurrency = 4

    public let ios: (any AlertTransport)?
    public let android: (any AlertTransport)?

    public init(ios: (any AlertTransport)?, android: (any AlertTransport)?) {
        self.ios = ios
        self.android = android
    }

    /// The platforms that have a transport.
    public var platforms: Set<AlertToken.Platform> { Set(AlertToken.Platform.allCases.filter { transport(for: $0) != nil }) }

    public func transport(for platform: AlertToken.Platform) -> (any AlertTransport)? { platform == .ios ? ios : android }

    /// The transports for logs: `relay`, `apns`, `apns+fcm`, `relay+fcm`, `off`, …
    var name: String {
        let names = [ios?.name, android?.name].compactMap { $0 }
        return names.isEmpty ? "off" : names.first == names.last ? names[0] : names.joined(separator: "+")
    }

    /// Prepares `tokens` (every token of `batches`) on their transports, then sends each batch
    /// through the transport of its tokens' platform, cut in two when the platforms go different
    /// ways. Returns each part sent, with the index of its batch in `batches` and what its tokens
    /// became; a token that is not ready (its registration failed) was not sent and has no outcome.
    func deliver(_ batches: [AlertBatch], tokens: [AlertToken]) async
        -> [(index: Int, part: AlertBatch, outcomes: [String: TokenOutcome])] {
        var ready: [String: Set<String>] = [:]
        for group in split(tokens, platform: \.platform) { ready[group.transport.name] = await group.transport.prepare(group.items) }
        let prepared = ready
        let parts = batches.enumerated().flatMap { index, batch in
            split(batch.tokens) { batch.androidTokens.contains($0) ? .android : .ios }.map { group in
                guard group.items.count < batch.tokens.count else { return (index: index, transport: group.transport, batch: batch) }
                var part = batch
                part.tokens = group.items
                part.androidTokens = batch.androidTokens.intersection(group.items)
                return (index: index, transport: group.transport, batch: part)
            }
        }
        return await forEachConcurrently(parts, limit: Self.concurrency) { part in
            var registered = part.batch
            registered.tokens.removeAll { !(prepared[part.transport.name]?.contains($0) ?? false) }
            return (part.index, part.batch, registered.tokens.isEmpty ? [:] : await part.transport.deliver(registered))
        }
    }

    /// `items` by the transport of their platform, iOS's first; a transport that carries both
    /// platforms (the relay) gets both in one group, and items of a platform without one are left out.
    private func split<Item>(_ items: [Item], platform: (Item) -> AlertToken.Platform)
        -> [(transport: any AlertTransport, items: [Item])] {
        // Both through the relay (the default): one group, in the items' order, without a pass.
        if let ios, let android, ios.name == android.name { return items.isEmpty ? [] : [(ios, items)] }
        var groups: [(transport: any AlertTransport, items: [Item])] = []
        for (route, transport) in [(AlertToken.Platform.ios, ios), (.android, android)] {
            guard let transport else { continue }
            let mine = items.filter { platform($0) == route }
            guard !mine.isEmpty else { continue }
            if let shared = groups.firstIndex(where: { $0.transport.name == transport.name }) {
                groups[shared].items += mine
            } else {
                groups.append((transport, mine))
            }
        }
        return groups
    }
}
