/// Where the relay keeps which hosts (`serverId`s) each device token is bound to.
///
/// A token is identified by its text and its ``BindingKind``; "tokens" below always means
/// distinct (token, kind) pairs. Every write is durable when its call returns.
///
/// - Important: binding rules are relay-protocol.md §3 (register/unregister, 16 hosts per
///   token, `maxTokens`) and §5 (a successful Live Activity `end` removes the binding).
public protocol BindingStore: Sendable {
    /// Adds this host's binding of `token`, or refreshes its registration time to `nowMs`.
    ///
    /// A token bound to ``BindingLimits/hostsPerToken`` hosts loses its least recently
    /// registered binding. A token with no binding of this kind is refused with
    /// ``RegisterOutcome/tokenLimit`` while the store holds `maxTokens` tokens.
    func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64) async throws -> RegisterOutcome

    /// Removes this host's binding of `token`, and only that one.
    func unregister(token: String, kind: BindingKind, serverId: String) async throws -> UnregisterOutcome

    /// Which of `tokens` are bound to `serverId`, in one lookup.
    func boundTokens(_ tokens: [String], kind: BindingKind, serverId: String) async throws -> Set<String>

    /// Deletes every binding of a token the provider reported dead.
    /// - Returns: how many bindings were deleted.
    @discardableResult
    func deleteToken(_ token: String, kind: BindingKind) async throws -> Int

    /// Removes one binding without the unregister checks (after a successful Live Activity `end`).
    /// - Returns: whether the binding existed.
    @discardableResult
    func removeBinding(token: String, kind: BindingKind, serverId: String) async throws -> Bool

    /// How many tokens (distinct token and kind pairs) have at least one binding.
    func count() async throws -> Int

    /// Finishes accepted writes, then releases the store; later calls throw.
    func close() async throws
}
