/// What `register` did.
public enum RegisterOutcome: Sendable, Hashable {
    /// The token had no binding of this kind; this host's is its first (the token now counts
    /// against `maxTokens`).
    case created
    /// A new binding of a token other hosts hold; `evicted` older bindings were dropped to
    /// stay within ``BindingLimits/hostsPerToken``.
    case added(evicted: Int)
    /// The binding existed; its registration time is now the latest.
    case refreshed
    /// The token is new and the store already holds `maxTokens` tokens; nothing changed.
    case tokenLimit
    /// This host already holds ``BindingPolicy/maxTokensPerHost`` tokens; nothing changed.
    case hostTokenLimit
    /// The token's hosts are all protected, or it gained ``BindingPolicy/newBindingsPerDay``
    /// new hosts within a day; nothing changed.
    case bindingLimit
    /// The token is new and the caller may not add tokens now (`mayAddToken` false).
    case newTokenRefused
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
    /// How many hosts one token may be bound to; a new host beyond evicts the least recently
    /// refreshed binding unless it is protected (``BindingPolicy/protectMs``).
    ///
    /// - Important: docs/relay.md, "Bindings".
    public static let hostsPerToken = 16
}
