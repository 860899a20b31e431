import Dispatch
import Foundation
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
        if let port = arguments.option("port") {
            guard let value = UInt16(port) else { throw UsageError("--port must be a number from 0 to 65535") }
            options.port = value
        }
        if let limit = arguments.option("max-streams") {
            guard let value = Int(limit), (1...100_000).contains(value) else { throw UsageError("--max-streams must be from 1 to 100000") }
            options.maxConcurrentStreams = value
        }
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

        // Signals are routed to a dispatch source before the server starts, so none is lost.
        let stopRequested = DispatchSemaphore(value: 0)
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopRequested.signal() }
            source.resume()
            return source
        }
        let fake = try FakeAPNsCommandLine.start(options)
        // Unbuffered, so a script waiting for this line sees it at once.
        FileHandle.standardOutput.write(Data("listening 127.0.0.1:\(fake.port)\n".utf8))
        stopRequested.wait()
        fake.stop()
        sources.forEach { $0.cancel() }
        return 0
    }
}
