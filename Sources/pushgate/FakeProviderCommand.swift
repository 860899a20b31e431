import PushgateTesting

/// What `pushgate fake-apns` and `pushgate fake-fcm` share: the `--port`, `--max-streams`,
/// `--script`, `--record`, `--cert-out`, `--tls-dir` and connection-fault flags, and serving the
/// fake in the foreground (SIGUSR1 drops its connections).
enum FakeProviderCommand<Fake: FakeProvider> {
    /// The range of the connection-fault flags' N.
    private static var faultRange: ClosedRange<Int> { 1...1_000_000 }

    /// Takes the shared flags and, through `credentialFlags`, the provider's own (what it returns
    /// loads the credentials once the whole list has been checked); parses the `--script` file
    /// with `parseScripts`; serves until SIGTERM/SIGINT. `name` is the command's, for messages.
    static func run(_ arguments: inout ArgumentList, name: String,
                    credentialFlags: (inout ArgumentList) -> () throws -> Fake.Configuration.Credentials?,
                    parseScripts: ([UInt8]) throws -> [String: [Fake.Script]]) throws -> Int32 {
        var options = FakeProviderCommandLine<Fake>.Options()
        (options.port, options.maxConcurrentStreams) = try ForegroundServer.listenOptions(&arguments)
        let loadCredentials = credentialFlags(&arguments)
        let scriptPath = arguments.option("script")
        let tlsDirectory = arguments.option("tls-dir")
        options.recordPath = arguments.option("record")
        options.certificateOutputPath = arguments.option("cert-out")
        options.goAwayAfterStreams = try arguments.optionalWholeNumber("goaway-after-streams", in: faultRange)
        options.dropAfterStreams = try arguments.optionalWholeNumber("drop-after-streams", in: faultRange)
        options.resetStreamsEvery = try arguments.optionalWholeNumber("reset-stream-every", in: faultRange)
        try arguments.finish()

        options.credentials = try loadCredentials()
        if let scriptPath {
            do { options.scripts = try parseScripts(try ToolFile.read(scriptPath)) } catch {
                throw ToolFailure("\(scriptPath): \(error)")
            }
        }
        if let tlsDirectory { options.certificate = try keptCertificate(in: tlsDirectory, name: name) }

        return try ForegroundServer.run {
            let fake = try FakeProviderCommandLine<Fake>.start(options)
            return ForegroundServer.Handle(port: fake.port, stop: fake.stop, dropConnections: {
                fake.dropConnectionsNow { dropped in
                    ToolCommand.printError("pushgate \(name): dropped \(dropped) connection\(dropped == 1 ? "" : "s") (SIGUSR1)")
                }
            })
        }
    }

    /// The key and certificate kept in `--tls-dir`; says so on standard error when the stored
    /// pair could not be used and was replaced.
    private static func keptCertificate(in path: String, name: String) throws -> SelfSignedCertificate {
        let kept: (certificate: SelfSignedCertificate, outcome: CertificateDirectory.Outcome)
        do { kept = try CertificateDirectory(path: path).certificate() } catch { throw ToolFailure("--tls-dir \(error)") }
        if case .replaced(let reason) = kept.outcome {
            ToolCommand.printError("pushgate \(name): --tls-dir \(path): \(reason); made a new key and certificate")
        }
        return kept.certificate
    }
}
