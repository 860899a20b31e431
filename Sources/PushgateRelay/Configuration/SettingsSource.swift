import Foundation

/// Resolves relay settings from command-line flags, then the environment, then defaults.
///
/// - Important: flags win over environment, environment over defaults; blank values count as
///   unset (relay-protocol.md §8).
struct SettingsSource: Sendable {
    /// Environment variable prefix for every relay setting.
    static let prefix = "PUSHGATE_RELAY_"

    private let flags: [String: String]
    private let switches: Set<String>
    private let environment: [String: String]

    /// Parses `--name value`, `--name=value` and bare `--switch` arguments.
    init(arguments: [String], environment: [String: String], switchNames: Set<String>) throws(ConfigurationError) {
        var flags: [String: String] = [:]
        var switches: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError(setting: argument, problem: "is not a flag (flags look like --port 8788)")
            }
            let name = String(argument.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                flags[String(name[..<equals])] = String(name[name.index(after: equals)...])
            } else if switchNames.contains(name) {
                switches.insert(name)
            } else {
                index += 1
                guard index < arguments.endIndex else {
                    throw ConfigurationError(setting: "--\(name)", problem: "needs a value")
                }
                flags[name] = arguments[index]
            }
            index += 1
        }
        self.flags = flags
        self.switches = switches
        self.environment = environment
    }

    /// The raw value of a setting: flag `--kebab-name`, then `PUSHGATE_RELAY_<NAME>`; blank → nil.
    func value(_ name: String) -> String? {
        if let flag = flags[Self.flagName(name)], !flag.trimmingCharacters(in: .whitespaces).isEmpty { return flag }
        if let env = environment[Self.prefix + name], !env.trimmingCharacters(in: .whitespaces).isEmpty { return env }
        return nil
    }

    /// Whether the setting's value comes from its command-line flag, which any local user can
    /// read in `ps`, rather than from the environment.
    func isFromFlag(_ name: String) -> Bool {
        flags[Self.flagName(name)].map { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? false
    }

    /// Whether a boolean setting is on: a bare `--switch`, or a true-ish flag/environment value.
    func bool(_ name: String, default defaultValue: Bool = false) throws(ConfigurationError) -> Bool {
        if switches.contains(Self.flagName(name)) { return true }
        guard let raw = value(name) else { return defaultValue }
        switch raw.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(setting: Self.displayName(name), problem: "must be true or false")
        }
    }

    /// An integer setting within `range`.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let raw = value(name) else { return defaultValue }
        guard let parsed = Int(raw), range.contains(parsed) else {
            throw ConfigurationError(setting: Self.displayName(name), problem: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return parsed
    }

    /// Flag names not recognised by the caller, so typos stop start-up.
    func unknownFlags(known: Set<String>) -> [String] {
        (Set(flags.keys).union(switches)).subtracting(known.map(Self.flagName)).sorted()
    }

    /// `TIMESTAMP_SKEW_MS` → `timestamp-skew-ms`.
    static func flagName(_ name: String) -> String { name.lowercased().replacingOccurrences(of: "_", with: "-") }

    /// How a setting is named in messages: both spellings.
    static func displayName(_ name: String) -> String { "\(prefix)\(name) (--\(flagName(name)))" }
}
