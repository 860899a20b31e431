import PushgateCommandLine
import PushgateCore
import PushgateTesting

/// `pushgate-dev fake-apns`: a fake APNs on 127.0.0.1 for demos and end-to-end tests (docs/fake-apns.md).
enum FakeAPNsCommand {
    static let usage = """
        pushgate-dev fake-apns [--port N] [--p8 FILE --key-id K --team-id T] [--script FILE] [--record FILE]
                               [--cert-out FILE] [--tls-dir DIR] [--max-streams N] [--goaway-after-streams N]
                               [--drop-after-streams N] [--reset-stream-every N]
            serve a fake APNs until SIGTERM/SIGINT (SIGUSR1 drops its connections); prints
            "listening 127.0.0.1:<port>" once ready
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        try FakeProviderCommand<FakeAPNs>.run(&arguments, name: "fake-apns", credentialFlags: credentials, parseScripts: FakeAPNsScriptFile.parse)
    }

    /// Takes `--p8`, `--key-id` and `--team-id` (all three or none); returns what loads the key.
    private static func credentials(_ arguments: inout ArgumentList) -> () throws -> FakeAPNs.ProviderCredentials? {
        let p8Path = arguments.option("p8")
        let keyId = arguments.option("key-id")
        let teamId = arguments.option("team-id")
        return {
            switch (p8Path, keyId, teamId) {
            case let (path?, keyId?, teamId?):
                let pem = String(decoding: try ToolFile.read(path), as: UTF8.self)
                do {
                    return try FakeAPNs.ProviderCredentials(p8PEM: pem, keyId: keyId, teamId: teamId)
                } catch {
                    throw ToolFailure("\(path): not a PKCS#8 P-256 private key (\(error))")
                }
            case (nil, nil, nil):
                ToolCommand.printError("pushgate-dev fake-apns: no --p8 given: provider tokens are checked for form and age only, not signature")
                return nil
            default:
                throw UsageError("--p8, --key-id and --team-id go together")
            }
        }
    }
}
