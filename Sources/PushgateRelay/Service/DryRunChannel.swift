import Foundation
import PushgateCore
import PushgateProviders
import Synchronization

/// Accepts every delivery without Apple credentials and appends it as one JSON line to a file,
/// so an operator can try the whole chain (`--dry-run --dry-run-log FILE`).
///
/// Each line: `{"pushType","environment","topic","priority","expiration","collapseId"?,"token","payload"}`
/// where `token` is the redacted form (first 8 hex chars of its SHA-256).
public final class DryRunChannel: DeliveryChannel {
    private let file: Mutex<FileHandle?>

    /// Opens (creating, mode 0600) the log file to append to; `nil` keeps nothing.
    public init(logPath: String?) throws {
        guard let logPath else {
            file = Mutex(nil)
            return
        }
        let descriptor = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError(setting: "PUSHGATE_RELAY_DRY_RUN_LOG (--dry-run-log)", problem: "names a file that cannot be opened for appending")
        }
        file = Mutex(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    public var isReady: Bool { true }

    /// Writing a line takes no provider round trip.
    public var requestTimeoutMilliseconds: Int64 { 0 }

    public func deliver(_ notification: APNsNotification, environment: APNsEnvironment) async -> APNsOutcome {
        var line = JSONObject([
            ("pushType", .string(notification.pushType.rawValue)), ("environment", .string(environment.rawValue)),
            ("topic", .string(notification.topic)), ("priority", .integer(Int64(notification.priority))),
            ("expiration", .integer(notification.expiration)),
        ])
        if let collapseId = notification.collapseId { line["collapseId"] = .string(collapseId) }
        line["token"] = .string(Redact.token(notification.deviceToken))
        line["payload"] = (try? JSONValue.parse(notification.payload)) ?? .null
        write(line)
        return .delivered
    }

    /// Appends `line` as one JSON line (also the `/v1/push` lanes' delivery lines).
    func write(_ line: JSONObject) {
        let bytes = JSONValue.object(line).serializedBytes() + [0x0A]
        file.withLock { $0?.write(Data(bytes)) }
    }

    public func shutdown() async {
        file.withLock { handle in
            try? handle?.close()
            handle = nil
        }
    }
}
