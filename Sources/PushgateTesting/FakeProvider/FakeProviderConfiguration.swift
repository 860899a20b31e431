import PushgateCore

/// The start-up settings every fake provider takes; each provider adds its own.
public protocol FakeProviderConfiguration: Sendable {
    /// What requests are checked against (a provider key, a service account).
    associatedtype Credentials: Sendable
    associatedtype Record: FakeProviderRecord

    init()
    /// The port on 127.0.0.1; 0 picks a free one.
    var port: UInt16 { get set }
    /// nil checks requests for form only.
    var credentials: Credentials? { get set }
    /// SETTINGS_MAX_CONCURRENT_STREAMS for new connections.
    var maxConcurrentStreams: Int { get set }
    var recording: FakeProviderRecording { get set }
    /// Called on the I/O thread after each request is decided or reset. Keep it quick, and do not
    /// capture the fake itself (that cycle keeps it running).
    var onRequest: (@Sendable (Record) -> Void)? { get set }
    /// The certificate to present; a fresh self-signed one when nil.
    var certificate: SelfSignedCertificate? { get set }
    var logger: Logger { get set }
}

/// How a fake provider keeps the requests it answers.
public enum FakeProviderRecording: Sendable {
    /// Keep every record in memory (tests that inspect requests).
    case full
    /// Keep only the counters (benchmarks, long command-line runs).
    case countersOnly
}
