import PushgateCommandLine
import PushgateCore
import PushgateTesting

/// `pushgate-dev fake-fcm`: a fake FCM (OAuth token endpoint and HTTP v1 send) on 127.0.0.1 for
/// demos and end-to-end tests (docs/fake-fcm.md).
enum FakeFCMCommand {
    static let usage = """
        pushgate-dev fake-fcm [--port N] [--service-account FILE] [--script FILE] [--record FILE] [--cert-out FILE]
                              [--tls-dir DIR] [--max-streams N] [--goaway-after-streams N] [--drop-after-streams N]
                              [--reset-stream-every N]
            serve a fake FCM until SIGTERM/SIGINT (SIGUSR1 drops its connections); prints
            "listening 127.0.0.1:<port>" once ready
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        try FakeProviderCommand<FakeFCM>.run(&arguments, name: "fake-fcm", credentialFlags: credentials, parseScripts: FakeFCMScriptFile.parse)
    }

    /// Takes `--service-account`; returns what loads the account's public half.
    private static func credentials(_ arguments: inout ArgumentList) -> () throws -> FakeFCM.Credentials? {
        let accountPath = arguments.option("service-account")
        return {
            guard let accountPath else {
                ToolCommand.printError(
                    "pushgate-dev fake-fcm: no --service-account given: assertions are checked for form and time only, and any project is served")
                return nil
            }
            let bytes = try ToolFile.read(accountPath)
            do {
                return try FakeFCM.Credentials(account: ServiceAccount(json: bytes))
            } catch {
                throw ToolFailure("\(accountPath): not a service account key file (\(error))")
            }
        }
    }
}
