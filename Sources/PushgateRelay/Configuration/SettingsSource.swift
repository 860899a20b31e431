import Foundation

/// Resolves relay settings from command-line flags, then the environment, then defaults; which
/// flag and which variable a setting has comes from ``RelaySetting/table``.
///
/// - Important: flags win over environment, environment over defaults; blank values count as
///   unset (docs/relay.md "Settings").
struct SettingsSource: Sendable {
    /// Environment variable prefix of the relay's own settings.
    static let prefix = "PUSHGATE_RELAY_"

    /// Where a setting's value came from.
    enum Origin: String, Sendable {
        case flag
        case environment
        case unset
    }

    private let flags: [String: String]
    private let switches: Set<String>
    private let environment: [String: String]

    /// Parses `--name value`, `--name=value` and bare `--switch` arguments (the table's switches).
    init(arguments: [String], environment: [String: String]) throws(ConfigurationError) {
        var flags: [String: String] = [:]
        var switches: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError(setting: argument, problem: "is not a flag (flags look like --port 8788)")
            }
            if let equals = argument.firstIndex(of: "=") {
                flags[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
            } else if Self.switchFlags.contains(argument) {
                switches.insert(argument)
            } else {
                index += 1
                guard index < arguments.endIndex else {
                    throw ConfigurationError(setting: argument, problem: "needs a value")
                }
                flags[argument] = arguments[index]
            }
            index += 1
        }
        self.flags = flags
        self.switches = switches
        self.environment = environment
    }

    private static let switchFlags = Set(RelaySetting.table.filter(\.isSwitch).compactMap(\.flag))
    private static let knownFlags = Set(RelaySetting.table.compactMap(\.flag))

    /// The raw value of a setting: its flag, then its environment variable; blank → nil.
    func value(_ name: String) -> String? { resolve(RelaySetting.named(name)).value }

    /// The raw value of `row` and where it came from; a bare switch reads as `true`.
    func resolve(_ row: RelaySetting) -> (value: String?, origin: Origin) {
        if let flag = row.flag {
            if let value = flags[flag], !Self.isBlank(value) { return (value, .flag) }
            if switches.contains(flag) { return ("true", .flag) }
        }
        if let value = environment[row.environment], !Self.isBlank(value) { return (value, .environment) }
        return (nil, .unset)
    }

    /// Whether the setting's value comes from its command-line flag, which any local user can
    /// read in `ps`, rather than from the environment.
    func isFromFlag(_ name: String) -> Bool { resolve(RelaySetting.named(name)).origin == .flag }

    /// Whether `flag` was given at all, known or not (to refuse one that would show a secret).
    func hasFlag(_ flag: String) -> Bool { flags[flag] != nil || switches.contains(flag) }

    /// Whether a boolean setting is on: a bare `--switch`, or a true-ish flag/environment value.
    func bool(_ name: String, default defaultValue: Bool = false) throws(ConfigurationError) -> Bool {
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

    /// Flags that are no setting's, so typos stop start-up.
    var unknownFlags: [String] { Set(flags.keys).union(switches).subtracting(Self.knownFlags).sorted() }

    /// How a setting is named in messages: its variable, and its flag when it has one.
    static func displayName(_ name: String) -> String { RelaySetting.named(name).displayName }

    private static func isBlank(_ value: String) -> Bool { value.trimmingCharacters(in: .whitespaces).isEmpty }
}
