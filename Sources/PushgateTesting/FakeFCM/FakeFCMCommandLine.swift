import Foundation
import PushgateCore

/// What `pushgate fake-fcm` runs once its flags are parsed: a fake FCM with the scripts
/// installed, every request appended to the record file, and the certificate PEM written out.
public enum FakeFCMCommandLine {
    /// The parsed flags.
    public struct Options: Sendable {
        /// `--port` (0: any free port).
        public var port: UInt16 = 0
        /// From `--service-account`; nil checks assertions for form and time only, any project.
        public var credentials: FakeFCM.Credentials?
        /// From `--script` (see ``FakeFCMScriptFile``).
        public var scripts: [String: FakeFCMScript] = [:]
        /// `--record`: one JSON line per request is appended here.
        public var recordPath: String?
        /// `--cert-out`: the server certificate PEM is written here (the client's extra CA file).
        public var certificateOutputPath: String?
        /// `--max-streams`.
        public var maxConcurrentStreams = 1000

        public init() {}
    }

    /// Starts the fake. Requests are recorded to the file only (nothing kept in memory), so a
    /// long run does not grow.
    public static func start(_ options: Options) throws -> FakeFCM {
        var configuration = FakeFCM.Configuration()
        configuration.port = options.port
        configuration.credentials = options.credentials
        configuration.maxConcurrentStreams = options.maxConcurrentStreams
        configuration.keepsRecords = false
        if let path = options.recordPath {
            let recordFile = try RecordFile(path: path)
            configuration.onRequest = { recordFile.append(line: $0.recordLine()) }
        }
        let fake = try FakeFCM(configuration: configuration)
        for (token, script) in options.scripts { fake.script(token: token, script) }
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
