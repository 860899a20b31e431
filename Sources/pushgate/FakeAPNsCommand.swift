import PushgateCore
import PushgateTesting

/// `pushgate fake-apns`: a fake APNs on 127.0.0.1 for demos and end-to-end tests (docs/fake-apns.md).
enum FakeAPNsCommand {
    static let usage = """
        pushgate fake-apns [--port N] [--p8 FILE --key-id K --team-id T] [--script FILE] [--record FILE]
                           [--cert-out FILE] [--max-streams N]
            serve a fake APNs until SIGTERM/SIGINT; prints "listening 127.0.0.1:<port>" once ready
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        var options = FakeAPNsCommandLine.Options()
        (options.port, options.maxConcurrentStreams) = try ForegroundServer.listenOptions(&arguments)
        let p8Path = arguments.option("p8")
        let keyId = arguments.option("key-id")
        let teamId = arguments.option("team-id")
        let scriptPath = arguments.option("script")
        options.recordPath = arguments.option("record")
        options.certificateOutputPath = arguments.option("cert-out")
        try arguments.finish()

        switch (p8Path, keyId, teamId) {
        case let (path?, keyId?, teamId?):
            let pem = String(decoding: try ToolFile.read(path), as: UTF8.self)
            do {
                options.credentials = try FakeAPNs.ProviderCredentials(p8PEM: pem, keyId: keyId, teamId: teamId)
            } catch {
                throw ToolFailure("\(path): not a PKCS#8 P-256 private key (\(error))")
            }
        case (nil, nil, nil):
            ToolCommand.printError("pushgate fake-apns: no --p8 given: provider tokens are checked for form and age only, not signature")
        default:
            throw UsageError("--p8, --key-id and --team-id go together")
        }
        if let scriptPath {
            do { options.scripts = try FakeAPNsScriptFile.parse(try ToolFile.read(scriptPath)) } catch {
                throw ToolFailure("\(scriptPath): \(error)")
            }
        }

        return try ForegroundServer.run {
            let fake = try FakeAPNsCommandLine.start(options)
            return (fake.port, fake.stop)
        }
    }
}
