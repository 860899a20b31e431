import PushgateTesting

/// What `pushgate fake-apns` and `pushgate fake-fcm` share: the `--port`, `--max-streams`,
/// `--script`, `--record` and `--cert-out` flags, and serving the fake in the foreground.
enum FakeProviderCommand<Fake: FakeProvider> {
    /// Takes the shared flags and, through `credentialFlags`, the provider's own (what it returns
    /// loads the credentials once the whole list has been checked); parses the `--script` file
    /// with `parseScripts`; serves until SIGTERM/SIGINT.
    static func run(_ arguments: inout ArgumentList,
                    credentialFlags: (inout ArgumentList) -> () throws -> Fake.Configuration.Credentials?,
                    parseScripts: ([UInt8]) throws -> [String: Fake.Script]) throws -> Int32 {
        var options = FakeProviderCommandLine<Fake>.Options()
        (options.port, options.maxConcurrentStreams) = try ForegroundServer.listenOptions(&arguments)
        let loadCredentials = credentialFlags(&arguments)
        let scriptPath = arguments.option("script")
        options.recordPath = arguments.option("record")
        options.certificateOutputPath = arguments.option("cert-out")
        try arguments.finish()

        options.credentials = try loadCredentials()
        if let scriptPath {
            do { options.scripts = try parseScripts(try ToolFile.read(scriptPath)) } catch {
                throw ToolFailure("\(scriptPath): \(error)")
            }
        }

        return try ForegroundServer.run {
            let fake = try FakeProviderCommandLine<Fake>.start(options)
            return (fake.port, fake.stop)
        }
    }
}
