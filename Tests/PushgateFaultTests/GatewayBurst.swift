/// Posts the gateway scenario's notifications with its fault in the middle: every host sends its
/// notifications one after another (seq 1, 2, …, each to all its phones), the hosts at once.
/// The fault comes as soon as every host's first third has been answered, so the windows of the
/// latest sends are still open, and no send is in flight that could leave its fate unknown: so
/// every send must be answered 2xx, and one that is not fails the scenario. The rest follow once
/// the fault is over. No sleep orders anything.
enum GatewayBurst {
    /// One host of the scenario: its key file and its phones' registration ids and tokens.
    struct Host: Sendable {
        let keyFile: String
        let phones: [(registrationId: String, token: String)]
    }

    /// One send and what the relay answered for each registration id.
    struct Send: Sendable {
        let host: Int
        let seq: Int
        let statuses: [String: String]
    }

    static func post(_ hosts: [Host], notificationsPerHost count: Int, chain: GatewayChain,
                     fault: @Sendable () async throws -> Void) async throws -> [Send] {
        let firstThird = count / 3
        let before = try await post(hosts, seqs: 1 ... firstThird, chain: chain)
        try await fault()
        return try await before + post(hosts, seqs: firstThird + 1 ... count, chain: chain)
    }

    /// Every host at once, each its `seqs` in order.
    private static func post(_ hosts: [Host], seqs: ClosedRange<Int>, chain: GatewayChain) async throws -> [Send] {
        try await withThrowingTaskGroup(of: [Send].self) { group in
            for (index, host) in hosts.enumerated() {
                group.addTask {
                    var sends: [Send] = []
                    for seq in seqs {
                        let outcome = try await chain.gateway("send", host: host.keyFile, [
                            "--registrations", host.phones.map(\.registrationId).joined(separator: ","),
                            "--title", "Host \(index) event \(seq)", "--notification-id", "host-\(index)-\(seq)", "--seq", "\(seq)",
                        ])
                        guard outcome.status == 0, let statuses = GatewayAnswer.statuses(outcome.stdout) else {
                            throw UnexpectedAnswer(description: "send \(index)-\(seq): \(outcome.stdout) \(outcome.stderr)")
                        }
                        sends.append(Send(host: index, seq: seq, statuses: statuses))
                    }
                    return sends
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }
}
