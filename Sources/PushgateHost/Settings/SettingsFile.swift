import Foundation
import PushgateCore
import Synchronization

/// `settings.json` in the host home: read whole, changed under one lock, written atomically.
///
/// - Important: protocol/host-api.md §1 and protocol/hapi-push.md §6 — writes go to a temporary file (fsync, mode
///   0600) renamed over the old one, one writer at a time: an in-process lock plus an advisory
///   lock on `settings.json.lock` for other processes; members the host does not know are kept.
public final class SettingsFile: Sendable {
    /// The file's path.
    public let path: String
    private let lock = Mutex<Void>(())

    public init(path: String) { self.path = path }

    /// The file's object; empty when the file does not exist.
    public func read() throws -> JSONObject {
        try lock.withLock { _ in try readUnlocked() }
    }

    /// Reads the object, lets `change` edit it, and writes it back when it changed.
    @discardableResult
    public func update<R>(_ change: (inout JSONObject) throws -> R) throws -> R {
        try lock.withLock { _ in
            let lockFile = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard lockFile >= 0 else { throw failure("open", path + ".lock") }
            defer { close(lockFile) }
            while flock(lockFile, LOCK_EX) != 0 {
                guard errno == EINTR else { throw failure("lock", path + ".lock") }
            }
            let before = try readUnlocked()
            var object = before
            let result = try change(&object)
            if object != before || !FileManager.default.fileExists(atPath: path) { try write(object) }
            return result
        }
    }

    private func readUnlocked() throws -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw HostSettingsError("cannot read \(path); check its permissions") }
            return JSONObject()
        }
        guard let object = (try? JSONValue.parse(Array(data)))?.objectValue else {
            throw HostSettingsError("\(path) is not a JSON object; fix or remove it (the signing key lives there, so back it up first)")
        }
        return object
    }

    private func write(_ object: JSONObject) throws {
        do {
            try PrivateFile.replace(path, contents: Array((JSONValue.object(object).serialized() + "\n").utf8))
        } catch {
            throw HostSettingsError(error.description)
        }
    }

    private func failure(_ operation: String, _ file: String) -> HostSettingsError {
        HostSettingsError("cannot \(operation) \(file): \(String(cString: strerror(errno)))")
    }
}
