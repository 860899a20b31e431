/// Running totals kept by the fake FCM, also when it keeps no records.
public struct FakeFCMCounters: Sendable, Equatable {
    /// OAuth exchanges answered (`POST /token`), and how many were granted.
    public var tokenRequests = 0
    public var tokensIssued = 0
    /// Other requests answered (sends, and requests for paths the fake does not serve).
    public var sendRequests = 0
    /// Sends by the status they were given.
    public var sendsByStatus: [Int: Int] = [:]
    /// TLS connections accepted.
    public var connectionsAccepted = 0

    public init() {}
}
