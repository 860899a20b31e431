/// Sends outbox entries of one kind again (docs/host.md, "Outbox").
protocol OutboxSender: Sendable {
    /// Sends `entries` (all of this sender's kind) once more; an outcome per entry id. An entry
    /// whose message cannot be read, or whose device is gone, is answered `failed(.never)`.
    /// Never throws; a dead token is forgotten by the sender itself.
    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome]
}
