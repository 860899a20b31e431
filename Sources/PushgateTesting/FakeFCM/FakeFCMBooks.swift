/// What the fake FCM keeps beside its scripts and records, under the same lock: the access
/// tokens it issued (with their expiry), a scripted exchange failure, and its counters.
struct FakeFCMBooks: Sendable {
    /// Access token → expiry, milliseconds since the epoch by the configured clock.
    var accessTokens: [String: Int64] = [:]
    var tokenFailureStatus: Int?
    var counters = FakeFCMCounters()
    /// Sends accepted so far, numbering the message names.
    var messagesAccepted = 0
}
