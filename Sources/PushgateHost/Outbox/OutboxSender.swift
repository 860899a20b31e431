/// Sends outbox entries of one kind again (docs/host.md, "Outbox").
protocol OutboxSender: Sendable {
    /// Sends `entries` (all of this sender's kind) once more; an outcome per entry id, and none
    /// for an entry to try later without counting it (the store could not be read). An entry
    /// whose message cannot be read, or whose device is gone, is answered `failed(.never)`.
    /// Never throws; a dead token is forgotten by the sender itself.
    func resend(_ entries: [OutboxEntry]) async -> [Int64: TokenOutcome]
}

/// Entries with the same message, up to `maxTokens` distinct tokens: one request's worth.
struct OutboxRequest {
    let message: String
    /// The ids of each token's entries (one token may owe the same push twice).
    let ids: [String: [Int64]]

    var tokens: [String] { Array(ids.keys) }

    /// `entries` grouped by message and cut into requests.
    static func group(_ entries: [OutboxEntry], maxTokens: Int) -> [OutboxRequest] {
        var groups: [String: [OutboxEntry]] = [:]
        for entry in entries { groups[entry.message, default: []].append(entry) }
        var requests: [OutboxRequest] = []
        for (message, members) in groups {
            var ids: [String: [Int64]] = [:]
            for entry in members {
                if ids[entry.token] == nil && ids.count == maxTokens {
                    requests.append(OutboxRequest(message: message, ids: ids))
                    ids = [:]
                }
                ids[entry.token, default: []].append(entry.id)
            }
            if !ids.isEmpty { requests.append(OutboxRequest(message: message, ids: ids)) }
        }
        return requests
    }

    /// Every entry of the request answered with the outcome of its token.
    func outcomes(_ delivered: [String: TokenOutcome]) -> [Int64: TokenOutcome] {
        var outcomes: [Int64: TokenOutcome] = [:]
        for (token, entries) in ids {
            for id in entries { outcomes[id] = delivered[token] ?? .failed(.later) }
        }
        return outcomes
    }
}
