import Foundation

/// Path helpers for the host home: `~` expansion and the home directory itself.
///
/// - Important: protocol/host-api.md §1 — home `PUSHGATE_HOME` (default `~/.pushgate`), mode 0700; path
///   settings may start with `~`.
public enum HomePath {
    /// `~` or `~/…` expanded against `HOME` from `environment` (else the process's home).
    public static func expand(_ path: String, environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }

    /// The home directory named by `PUSHGATE_HOME` (or `~/.pushgate`), `~` expanded.
    public static func path(environment: [String: String]) -> String {
        let raw = environment[SettingName.home.environment].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        return expand(raw ?? SettingName.home.defaultValue, environment: environment)
    }

    /// ``path(environment:)``, created with mode 0700.
    public static func prepare(environment: [String: String]) throws -> String {
        let home = path(environment: environment)
        do {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: home)
        } catch {
            throw HostSettingsError("cannot create the host home \(home) (set PUSHGATE_HOME to a writable directory): \(error.localizedDescription)")
        }
        return home
    }
}
