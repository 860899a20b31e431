/// What `pushgate-dev fake-apns` and `pushgate-dev fake-fcm` run once their flags are parsed: the fake
/// with the scripts and connection faults installed, every request appended to the record file,
/// and the certificate PEM written out.
public enum FakeProviderCommandLine<Fake: FakeProvider> {
    /// The parsed flags.
    public struct Options: Sendable {
        /// `--port` (0: any free port).
        public var port: UInt16 = 0
        /// From the credential flags (`--p8 …`, `--service-account`); nil checks requests for form only.
        public var credentials: Fake.Configuration.Credentials?
        /// From `--script`: each token's answer sequence (see ``FakeAPNsScriptFile``, ``FakeFCMScriptFile``).
        public var scripts: [String: [Fake.Script]] = [:]
        /// `--record`: one JSON line per request is appended here.
        public var recordPath: String?
        /// `--cert-out`: the server certificate PEM is written here (the client's extra CA file).
        public var certificateOutputPath: String?
        /// `--max-streams`.
        public var maxConcurrentStreams = 1000
        /// From `--tls-dir` (``CertificateDirectory``); nil makes a fresh certificate.
        public var certificate: SelfSignedCertificate?
        /// `--goaway-after-streams` (``FakeProvider/goAway(afterStreams:)``).
        public var goAwayAfterStreams: Int?
        /// `--drop-after-streams` (``FakeProvider/dropConnections(afterStreams:)``).
        public var dropAfterStreams: Int?
        /// `--reset-stream-every` (``FakeProvider/resetStreams(every:)``).
        public var resetStreamsEvery: Int?

        public init() {}
    }

    /// Starts the fake. Requests are recorded to the file only (counters-only in memory), so a
    /// long run does not grow.
    public static func start(_ options: Options) throws -> Fake {
        var configuration = Fake.Configuration()
        configuration.port = options.port
        configuration.credentials = options.credentials
        configuration.maxConcurrentStreams = options.maxConcurrentStreams
        configuration.certificate = options.certificate
        configuration.recording = .countersOnly
        if let path = options.recordPath {
            let recordFile = try RecordFile(path: path)
            configuration.onRequest = { recordFile.append(line: $0.recordLine()) }
        }
        let fake = try Fake(configuration: configuration)
        for (token, sequence) in options.scripts { fake.script(token: token, sequence: sequence) }
        fake.goAway(afterStreams: options.goAwayAfterStreams)
        fake.dropConnections(afterStreams: options.dropAfterStreams)
        fake.resetStreams(every: options.resetStreamsEvery)
        if let path = options.certificateOutputPath {
            do {
                try fake.writeCertificate(to: path)
            } catch {
                fake.stop()
                throw error
            }
        }
        return fake
    }
}
