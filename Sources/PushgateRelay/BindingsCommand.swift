import Foundation
import PushgateStore

/// `pushgate-relay bindings --token T [--clear]`: shows which hosts hold a device token, and
/// with `--clear` removes every binding of it, so an operator can answer "why does my phone
/// get nothing" and reset a token that strangers took (docs/relay.md "Bindings").
///
/// Reads the same settings as the relay (`DATABASE_PATH` or `DATABASE_URL`); may run while the
/// relay runs (SQLite takes turns through its lock, PostgreSQL through its advisory lock).
enum BindingsCommand {
    static let usage = "usage: pushgate-relay bindings --token HEX [--clear] [relay settings such as --database-path]"

    /// Runs the command; returns the exit status (0 done, 2 bad arguments or settings, 1 the store failed).
    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        if arguments == ["--help"] {
            FileHandle.standardOutput.write(Data((usage + "\n").utf8))
            return 0
        }
        var rest = arguments
        var token: String?
        var clear = false
        var index = 0
        while index < rest.count {
            switch rest[index] {
            case "--clear":
                clear = true
                rest.remove(at: index)
            case "--token" where index + 1 < rest.count:
                token = rest[index + 1]
                rest.removeSubrange(index ... index + 1)
            default:
                index += 1
            }
        }
        guard let token, DeviceToken.isValid(token) else { return fail(usage + "\n--token must be 64 to 200 hex digits") }
        let configuration: RelayConfiguration
        do {
            // The store's settings only: no provider credentials are needed to read bindings.
            configuration = try RelayConfiguration(arguments: rest + ["--dry-run"], environment: environment)
        } catch {
            return fail(error.description)
        }
        do {
            let store: any BindingStore = if let url = configuration.databaseURL {
                try await PostgreSQLBindingStore.open(url: url, policy: configuration.bindings, readers: 1)
            } else {
                try await SQLiteBindingStore.open(path: configuration.databasePath, policy: configuration.bindings)
            }
            let bindings = try await store.bindings(of: token)
            var output = bindings.isEmpty ? "no bindings\n" : ""
            for binding in bindings {
                let date = Date(timeIntervalSince1970: Double(binding.registeredAt) / 1_000)
                output += "\(binding.kind.rawValue) \(binding.serverId) registered \(date.formatted(.iso8601))\n"
            }
            if clear { output += "cleared \(try await store.clear(token: token)) bindings\n" }
            try await store.close()
            FileHandle.standardOutput.write(Data(output.utf8))
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushgate-relay bindings: the store failed: \(error)\n".utf8))
            return 1
        }
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("pushgate-relay bindings: \(message)\n".utf8))
        return 2
    }
}
