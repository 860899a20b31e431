/// What `register` did.
public enum RegisterOutcome: Sendable, Hashable {
    /// A new binding for this host; `evicted` older bindings of the token were dropped to
    /// stay within ``BindingLimits/hostsPerToken``.
    case added(evicted: Int)
    /// The binding existed; its registration time is now the latest.
    case refreshed
    /// The token is new and the store already holds `maxTokens` tokens; nothing changed.
    case tokenLimit
}

/// What `unregister` did.
public enum UnregisterOutcome: Sendable, Hashable {
    /// The caller's binding was removed.
    case removed
    /// The token has no binding at all (the relay answers 200).
    case notFound
    /// The token is bound only to other hosts; nothing changed (the relay answers 401).
    case boundToOthers
}

/// Fixed limits of the binding model.
public enum BindingLimits {
    /// How many hosts one token may be bound to; registering one more evicts the least
    /// recently registered binding.
    ///
    /// - Important: relay-protocol.md §3 and §10 line 7.
    public static let hostsPerToken = 16

    /// How many tokens a store holds when no limit is given.
    ///
    /// - Important: relay-protocol.md §8 (`MAX_TOKENS`).
    public static let defaultMaxTokens = 100_000
}
