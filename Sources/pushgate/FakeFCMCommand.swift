import PushgateCore
import PushgateTesting

/// `pushgate fake-fcm`: a fake FCM (OAuth token endpoint and HTTP v1 send) on 127.0.0.1 for
/// demos and end-to-end tests (docs/fake-fcm.md).
enum FakeFCMCommand {
    static let usage = """
        pushgate fake-fcm [--port N] [--service-account FILE] [--script FILE] [--record FILE] [--cert-out FILE]
                          [--max-streams N]
            serve a fake FCM until SIGTERM/SIGINT; prints "listening 127.0.0.1:<port>" once ready
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        var options = FakeFCMCommandLine.Options()
        (options.port, options.maxConcurrentStreams) = try ForegroundServer.listenOptions(&arguments)
        let accountPath = arguments.option("service-account")
        let scriptPath = arguments.option("script")
        options.recordPath = arguments.option("record")
        options.certificateOutputPath = arguments.option("cert-out")
        try arguments.finish()

        if let accountPath {
            let bytes = try ToolFile.read(accountPath)
            do {
                options.credentials = try FakeFCM.Credentials(account: ServiceAccount(json: bytes))
            } catch {
                throw ToolFailure("\(accountPath): not a service account key file (\(error))")
            }
        } else {
            ToolCommand.printError("pushgate fake-fcm: no --service-account given: assertions are checked for form and time only, and any project is served")
        }
        if let scriptPath {
            do { options.scripts = try FakeFCMScriptFile.parse(try ToolFile.read(scriptPath)) } catch {
                throw ToolFailure("\(scriptPath): \(error)")
            }
        }

        return try ForegroundServer.run {
            let fake = try FakeFCMCommandLine.start(options)
            return (fake.port, fake.stop)
        }
    }
}
