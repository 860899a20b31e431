import PushgateCore

/// A fake APNs: a real HTTP/2-over-TLS server on loopback that validates requests as APNs does,
/// answers per-token scripts, and records what it received. Thread-safe.
///
/// Trust ``certificatePEM`` as the client's extra CA file and send to ``origin``.
///
/// - Important: protocol/signed-relay.md §7 — the behaviours a client must handle are all scriptable:
///   dead-token answers, answer sequences, delays, `retry-after`, SETTINGS_MAX_CONCURRENT_STREAMS,
///   GOAWAY, dropped connections, reset streams.
public final class FakeAPNs: FakeProvider {
    /// Start-up settings.
    public struct Configuration: FakeProviderConfiguration {
        /// The port on 127.0.0.1; 0 picks a free one.
        public var port: UInt16 = 0
        /// The key provider tokens must verify against; nil checks only their form (ES256 shape,
        /// `kid`, `iss`, integer `iat`, age), not the signature.
        public var credentials: ProviderCredentials?
        /// SETTINGS_MAX_CONCURRENT_STREAMS for new connections.
        public var maxConcurrentStreams = 1000
        /// The clock that ages provider tokens and stamps 410 answers. (The certificate is dated
        /// by the real clock: the client's TLS checks it against real time.)
        public var clock: any WallClock = SystemClock()
        /// `.full` keeps every ``RecordedRequest``; `.countersOnly` only ``FakeAPNsCounters``.
        public var recording: FakeProviderRecording = .full
        /// Called on the I/O thread after each request is decided or reset (the CLI's `--record` uses it).
        /// Keep it quick, and do not capture the fake itself (that cycle keeps it running).
        public var onRequest: (@Sendable (RecordedRequest) -> Void)?
        /// The certificate to present; a fresh self-signed one when nil.
        public var certificate: SelfSignedCertificate?
        public var logger = Logger(component: "fake-apns", minimumLevel: .warning)

        public init() {}
    }

    /// The listener, I/O thread and connection faults (see ``FakeProvider``).
    public let server: FakeHTTP2Server
    private let state: FakeAPNsResponder.State

    /// Starts listening and serving on a thread of its own.
    public init(configuration: Configuration = Configuration()) throws {
        let state = FakeAPNsResponder.State(books: FakeAPNsCounters(), configuration: configuration)
        self.state = state
        server = try FakeHTTP2Server(configuration: configuration, name: "fake-apns") {
            FakeAPNsResponder(state: state, credentials: configuration.credentials, clock: configuration.clock)
        }
    }

    /// The requests answered or reset so far, in order (empty in counters-only mode).
    public var requests: [RecordedRequest] { state.records }

    /// Forgets the recorded requests.
    public func clearRequests() { state.clearRecords() }

    /// Totals so far, including the most streams seen open at once on one connection.
    public var counters: FakeAPNsCounters {
        var counters = state.withBooks { $0 }
        counters.connections = server.control.counters
        return counters
    }

    /// Answers the next valid requests for `token` with `sequence` in order, the last one
    /// repeating (empty: back to 200); ``script(token:_:)`` scripts one answer.
    public func script(token: String, sequence: [ScriptedResponse]) { state.setScript(sequence, for: token) }

    /// Removes every token script.
    public func clearScripts() { state.clearScripts() }
}

/// Running totals kept by the fake APNs, also in counters-only recording mode.
@dynamicMemberLookup
public struct FakeAPNsCounters: Sendable, Equatable {
    /// Requests received: answered, waiting on a scripted delay, or reset.
    public var requests = 0
    /// Answered requests by the status they were given.
    public var byStatus: [Int: Int] = [:]
    /// The server's connection totals, read as members of these counters.
    public var connections = FakeConnectionCounters()

    public init() {}

    public subscript<Value>(dynamicMember member: KeyPath<FakeConnectionCounters, Value>) -> Value { connections[keyPath: member] }
}
