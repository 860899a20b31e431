import PushgateCore

/// A fake FCM: a real HTTP/2-over-TLS server on loopback that answers the OAuth token endpoint
/// (`POST /token`, verifying the service account's RS256 assertion) and FCM HTTP v1
/// `POST /v1/projects/<id>/messages:send` (bearer token, message shape, 4096-byte data limit),
/// answers per-token scripts, and records what it received. Thread-safe.
///
/// Trust ``certificatePEM`` as the client's extra CA file, send to ``origin`` and exchange
/// assertions at ``tokenURI``.
///
/// - Important: protocol/hapi-push.md §8 — the answers a client must handle are all scriptable:
///   `UNREGISTERED` 404, `INVALID_ARGUMENT` 400 naming the token, 429 `QUOTA_EXCEEDED`, 5xx,
///   `SENDER_ID_MISMATCH`, an unknown project, a failing or revoked OAuth grant, answer
///   sequences, `retry-after`, and the connection faults of ``FakeProvider``.
public final class FakeFCM: FakeProvider {
    /// Start-up settings.
    public struct Configuration: FakeProviderConfiguration {
        /// The port on 127.0.0.1; 0 picks a free one.
        public var port: UInt16 = 0
        /// The service account assertions must verify against, and its project (the only one
        /// served); nil checks assertions for form and time only and serves any project.
        public var credentials: Credentials?
        /// `expires_in` of issued access tokens, in seconds (Google answers 3599).
        public var accessTokenLifetimeSeconds = 3599
        /// The clock that ages assertions and access tokens.
        public var clock: any WallClock = SystemClock()
        /// `.full` keeps every ``FakeFCMRecord``; `.countersOnly` only ``FakeFCMCounters``.
        public var recording: FakeProviderRecording = .full
        /// Called on the I/O thread after each request is decided or reset. Keep it quick, and do not
        /// capture the fake itself (that cycle keeps it running).
        public var onRequest: (@Sendable (FakeFCMRecord) -> Void)?
        /// The certificate to present; a fresh self-signed one when nil.
        public var certificate: SelfSignedCertificate?
        /// SETTINGS_MAX_CONCURRENT_STREAMS for new connections.
        public var maxConcurrentStreams = 1000
        public var logger = Logger(component: "fake-fcm", minimumLevel: .warning)

        public init() {}
    }

    /// The listener, I/O thread and connection faults (see ``FakeProvider``).
    public let server: FakeHTTP2Server
    private let state: FakeFCMResponder.State

    /// `https://127.0.0.1:<port>/token`: the token URI to exchange assertions at.
    public var tokenURI: String { origin + FakeFCMResponder.tokenPath }

    /// Starts listening and serving on a thread of its own.
    public init(configuration: Configuration = Configuration()) throws {
        let state = FakeFCMResponder.State(books: FakeFCMBooks(), configuration: configuration)
        self.state = state
        server = try FakeHTTP2Server(configuration: configuration, name: "fake-fcm") {
            FakeFCMResponder(state: state, credentials: configuration.credentials, clock: configuration.clock,
                             lifetimeSeconds: configuration.accessTokenLifetimeSeconds)
        }
    }

    /// The requests answered or reset so far, in order (empty in counters-only mode).
    public var requests: [FakeFCMRecord] { state.records }

    /// The sends answered or reset so far, in order.
    public var sends: [FakeFCMRecord] { state.records.filter { $0.kind == .send } }

    /// Forgets the recorded requests.
    public func clearRequests() { state.clearRecords() }

    /// Totals so far.
    public var counters: FakeFCMCounters {
        var counters = state.withBooks { $0.counters }
        counters.connections = server.control.counters
        return counters
    }

    /// Answers the next valid sends to registration token `token` with `sequence` in order, the
    /// last one repeating (empty: back to 200); ``script(token:_:)`` scripts one answer.
    public func script(token: String, sequence: [FakeFCMScript]) { state.setScript(sequence, for: token) }

    /// Removes every token script.
    public func clearScripts() { state.clearScripts() }

    /// Answers every OAuth exchange with `status` from now on (nil: back to verifying and granting).
    public func failTokenExchanges(status: Int?) { state.withBooks { $0.tokenFailureStatus = status } }

    /// Forgets every access token issued so far: sends carrying one get 401 `UNAUTHENTICATED`.
    public func revokeAccessTokens() { state.withBooks { $0.accessTokens.removeAll() } }
}

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

/// Running totals kept by the fake FCM, also when it keeps no records.
@dynamicMemberLookup
public struct FakeFCMCounters: Sendable, Equatable {
    /// OAuth exchanges received (`POST /token`, reset ones included), and how many were granted.
    public var tokenRequests = 0
    public var tokensIssued = 0
    /// Other requests received (sends, and requests for paths the fake does not serve; reset ones included).
    public var sendRequests = 0
    /// Answered sends by the status they were given.
    public var sendsByStatus: [Int: Int] = [:]
    /// The server's connection totals, read as members of these counters.
    public var connections = FakeConnectionCounters()

    public init() {}

    public subscript<Value>(dynamicMember member: KeyPath<FakeConnectionCounters, Value>) -> Value { connections[keyPath: member] }
}

extension FakeFCM {
    /// The `PUSHGATE_RELAY_*` settings that point a relay's Android lane at this fake: the
    /// service account file, the FCM origin and token URI, and the fake's certificate as CA.
    public func relayEnvironment(serviceAccountPath: String, caFile: String) -> [String: String] {
        [
            "PUSHGATE_RELAY_FCM_SERVICE_ACCOUNT_PATH": serviceAccountPath, "PUSHGATE_RELAY_FCM_ORIGIN": origin,
            "PUSHGATE_RELAY_FCM_TOKEN_URI": tokenURI, "PUSHGATE_RELAY_FCM_CA_FILE": caFile,
        ]
    }
}
