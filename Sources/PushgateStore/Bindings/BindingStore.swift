/// Where the relay keeps which hosts (`serverId`s) each device token is bound to.
///
/// A token is identified by its text and its ``BindingKind``; "tokens" below always means
/// distinct (token, kind) pairs. Every write is durable when its call returns.
///
/// - Important: binding rules are docs/relay.md "Bindings" (register/unregister, 16 hosts per
///   token, protected bindings, the caps of ``BindingPolicy``, the TTL) and a successful Live
///   Activity `end` removes the binding.
public protocol BindingStore: Sendable {
    /// Adds this host's binding of `token`, or refreshes its registration time to `nowMs`.
    ///
    /// A token bound to ``BindingLimits/hostsPerToken`` hosts loses its least recently
    /// refreshed binding unless that one is protected. `mayAddToken` false refuses a token the
    /// store does not hold yet (the caller's per-IP budget of new tokens is spent).
    func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64,
                  mayAddToken: Bool) async throws -> RegisterOutcome

    /// Removes this host's binding of `token`, and only that one.
    func unregister(token: String, kind: BindingKind, serverId: String) async throws -> UnregisterOutcome

    /// The kind each of `tokens` is bound to `serverId` with — one of `kinds` (one or two; a
    /// token bound with both maps to the first) — among bindings refreshed within the TTL, in
    /// one lookup. A `send` asks for `[.alert, .android]`: each token goes where its binding says.
    func boundTokens(_ tokens: [String], kinds: [BindingKind], serverId: String, nowMs: Int64) async throws -> [String: BindingKind]

    /// Deletes every binding of a token the provider reported gone.
    /// - Returns: how many bindings were deleted.
    @discardableResult
    func deleteToken(_ token: String, kind: BindingKind) async throws -> Int

    /// Removes one binding without the unregister checks (after a successful Live Activity
    /// `end`, or a provider answer that condemns the token for this host only).
    /// - Returns: whether the binding existed.
    @discardableResult
    func removeBinding(token: String, kind: BindingKind, serverId: String) async throws -> Bool

    /// How many tokens (distinct token and kind pairs) have at least one binding.
    func count() async throws -> Int

    /// Removes, a bounded step at a time, bindings not refreshed within the TTL and day-old
    /// admissions; returns how many bindings this step removed.
    @discardableResult
    func sweep(nowMs: Int64) async throws -> Int

    /// Every binding of `token`, every kind (the operator's `bindings` command).
    func bindings(of token: String) async throws -> [BindingRecord]

    /// Deletes every binding of `token`, every kind; returns how many.
    func clear(token: String) async throws -> Int

    /// Finishes accepted writes, then releases the store; later calls throw.
    func close() async throws
}

extension BindingStore {
    /// Which of `tokens` are bound to `serverId` as `kind` and were refreshed within the TTL.
    public func boundTokens(_ tokens: [String], kind: BindingKind, serverId: String, nowMs: Int64) async throws -> Set<String> {
        Set(try await boundTokens(tokens, kinds: [kind], serverId: serverId, nowMs: nowMs).keys)
    }

    /// Registers with room for new tokens.
    public func register(token: String, kind: BindingKind, serverId: String, nowMs: Int64) async throws -> RegisterOutcome {
        try await register(token: token, kind: kind, serverId: serverId, nowMs: nowMs, mayAddToken: true)
    }
}

/// One binding as stored: which host holds which token, and when it last registered it.
public struct BindingRecord: Sendable, Equatable {
    /// A binding's primary key, where the TTL sweep resumes.
    struct Key: Sendable, Equatable {
        var token: String
        var kind: String
        var serverId: String
    }

    public var token: String
    public var kind: BindingKind
    public var serverId: String
    /// The last register of this binding, milliseconds since the epoch.
    public var registeredAt: Int64
}
