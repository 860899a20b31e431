import PushgateCommandLine
import PushgateTesting

/// What `pushgate-dev fake-apns` and `pushgate-dev fake-fcm` share: the `--port`, `--max-streams`,
/// `--script`, `--record`, `--cert-out`, `--tls-dir` and connection-fault flags, and serving the
/// fake in the foreground (SIGUSR1 drops its connections, SIGHUP reads the script again).
enum FakeProviderCommand<Fake: FakeProvider> {
    /// The range of the connection-fault flags' N.
    private static var faultRange: ClosedRange<Int> { 1...1_000_000 }

    /// Takes the shared flags and, through `credentialFlags`, the provider's own (what it returns
    /// loads the credentials once the whole list has been checked); parses the `--script` file
    /// with `parseScripts`; serves until SIGTERM/SIGINT. `name` is the command's, for messages.
    static func run(_ arguments: inout ArgumentList, name: String,
                    credentialFlags: (inout ArgumentList) -> () throws -> Fake.Configuration.Credentials?,
                    parseScripts: @escaping ([UInt8]) throws -> [String: [Fake.Script]]) throws -> Int32 {
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
        let readScript = { (path: String) throws(ToolFailure) -> [String: [Fake.Script]] in
            do { return try parseScripts(try ToolFile.read(path)) } catch { throw ToolFailure("\(path): \(error)") }
        }
        if let scriptPath { options.scripts = try readScript(scriptPath) }
        if let tlsDirectory { options.certificate = try keptCertificate(in: tlsDirectory, name: name) }

        return try ForegroundServer.run {
            let fake = try FakeProviderCommandLine<Fake>.start(options)
            return ForegroundServer.Handle(port: fake.port, stop: fake.stop, dropConnections: {
                fake.dropConnectionsNow { dropped in
                    ToolCommand.printError("pushgate-dev \(name): dropped \(dropped) connection\(dropped == 1 ? "" : "s") (SIGUSR1)")
                }
            }, reloadScript: {
                guard let scriptPath else { return ToolCommand.printError("pushgate-dev \(name): no --script to read again (SIGHUP)") }
                do throws(ToolFailure) {
                    let scripts = try readScript(scriptPath)
                    for (token, sequence) in scripts { fake.script(token: token, sequence: sequence) }
                    ToolCommand.printError("pushgate-dev \(name): read \(scriptPath) again, \(scripts.count) token(s) (SIGHUP)")
                } catch {
                    ToolCommand.printError("pushgate-dev \(name): \(error.message); the scripts stay as they were (SIGHUP)")
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
            ToolCommand.printError("pushgate-dev \(name): --tls-dir \(path): \(reason); made a new key and certificate")
        }
        return kept.certificate
    }
}
