import Foundation

/// A fresh host home under the temporary directory, and the environment that points at it.
struct TemporaryHome {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)").path
    }

    /// `PUSHGATE_HOME` plus `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = extra
        environment["PUSHGATE_HOME"] = path
        return environment
    }

    var settingsPath: String { path + "/settings.json" }

    func mode(of file: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
