import Foundation
import PushgateCore

/// What `pushgate fake-apns` runs once its flags are parsed: a fake APNs with the scripts
/// installed, every request appended to the record file, and the certificate PEM written out.
public enum FakeAPNsCommandLine {
    /// The parsed flags.
    public struct Options: Sendable {
        /// `--port` (0: any free port).
        public var port: UInt16 = 0
        /// From `--p8`, `--key-id`, `--team-id`; nil checks provider tokens for form only.
        public var credentials: FakeAPNs.ProviderCredentials?
        /// From `--script` (see ``FakeAPNsScriptFile``).
        public var scripts: [String: ScriptedResponse] = [:]
        /// `--record`: one JSON line per request is appended here.
        public var recordPath: String?
        /// `--cert-out`: the server certificate PEM is written here (the client's extra CA file).
        public var certificateOutputPath: String?
        /// `--max-streams`.
        public var maxConcurrentStreams = 1000

        public init() {}
    }

    /// Starts the fake. Requests are recorded to the file only (counters-only in memory), so a
    /// long run does not grow.
    public static func start(_ options: Options) throws -> FakeAPNs {
        var configuration = FakeAPNs.Configuration()
        configuration.port = options.port
        configuration.credentials = options.credentials
        configuration.maxConcurrentStreams = options.maxConcurrentStreams
        configuration.recording = .countersOnly
        if let path = options.recordPath {
            let recordFile = try RecordFile(path: path)
            configuration.onRequest = { recordFile.append(line: $0.recordLine()) }
        }
        let fake = try FakeAPNs(configuration: configuration)
        for (token, response) in options.scripts { fake.script(token: token, response) }
        if let path = options.certificateOutputPath {
            do {
                try fake.certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                fake.stop()
                throw error
            }
        }
        return fake
    }
}
