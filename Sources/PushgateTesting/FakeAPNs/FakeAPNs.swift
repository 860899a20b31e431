import PushgateCore

/// A fake APNs: a real HTTP/2-over-TLS server on loopback that validates requests as APNs does,
/// answers per-token scripts, and records what it received. Thread-safe.
///
/// Trust ``certificatePEM`` as the client's extra CA file and send to ``origin``.
///
/// - Important: relay-protocol.md §7 — the behaviours a client must handle are all scriptable:
///   dead-token answers, delays, SETTINGS_MAX_CONCURRENT_STREAMS, GOAWAY, dropped connections.
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
        /// Called on the I/O thread after each request is decided (the CLI's `--record` uses it).
        /// Keep it quick, and do not capture the fake itself (that cycle keeps it running).
        public var onRequest: (@Sendable (RecordedRequest) -> Void)?
        /// The certificate to present; a fresh self-signed one when nil.
        public var certificate: SelfSignedCertificate?
        public var logger = Logger(component: "fake-apns", minimumLevel: .warning)

        public init() {}
    }

    /// The port the fake listens on, on 127.0.0.1.
    public var port: UInt16 { server.port }
    /// The server certificate (PEM); clients trust it as their extra CA file.
    public var certificatePEM: String { server.certificatePEM }

    private let state: FakeAPNsResponder.State
    private let server: FakeHTTP2Server

    /// Starts listening and serving on a thread of its own.
    public init(configuration: Configuration = Configuration()) throws {
        let state = FakeAPNsResponder.State(books: FakeAPNsCounters(), configuration: configuration)
        self.state = state
        server = try FakeHTTP2Server(configuration: configuration, name: "fake-apns") {
            FakeAPNsResponder(state: state, credentials: configuration.credentials, clock: configuration.clock)
        }
    }

    /// The requests answered so far, in order (empty in counters-only mode).
    public var requests: [RecordedRequest] { state.records }

    /// Forgets the recorded requests.
    public func clearRequests() { state.clearRecords() }

    /// Totals so far, including the most streams seen open at once on one connection.
    public var counters: FakeAPNsCounters {
        var counters = state.withBooks { $0 }
        let connections = server.control.counters
        counters.connectionsAccepted = connections.connectionsAccepted
        counters.goAwaysSent = connections.goAwaysSent
        counters.connectionsDropped = connections.connectionsDropped
        counters.maxConcurrentStreamsSeen = connections.maxConcurrentStreamsSeen
        return counters
    }

    /// Answers valid requests for `token` with `response` from now on (nil: back to 200).
    public func script(token: String, _ response: ScriptedResponse?) { state.setScript(response, for: token) }

    /// Removes every token script.
    public func clearScripts() { state.clearScripts() }

    /// Sends GOAWAY on each connection once it has opened `streams` streams (that stream is the
    /// last one served; later ones are refused and must be retried elsewhere); nil turns it off.
    public func goAway(afterStreams streams: Int?) { server.control.updatePolicy { $0.goAwayAfterStreams = streams } }

    /// Closes each connection's TCP socket, without GOAWAY, when stream number `streams` opens:
    /// the earlier streams are answered, that one and any still waiting are lost. nil turns it off.
    public func dropConnections(afterStreams streams: Int?) { server.control.updatePolicy { $0.dropAfterStreams = streams } }

    /// Closes every open connection now, without GOAWAY.
    public func dropConnectionsNow() { server.command(.dropConnections) }

    /// Announces a new SETTINGS_MAX_CONCURRENT_STREAMS on open connections and uses it for new ones.
    public func setMaxConcurrentStreams(_ limit: Int) {
        server.control.updatePolicy { $0.maxConcurrentStreams = limit }
        server.command(.announceMaxConcurrentStreams(limit))
    }

    /// Closes every connection and the listener, and waits for the I/O thread to end. Idempotent.
    public func stop() { server.stop() }
}
