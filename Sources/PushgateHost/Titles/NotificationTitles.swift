import PushgateCore

/// The localized scenario titles and the locale normalisation rules, parsed from
/// `notification-titles.json`, whose text is compiled in (`NotificationTitles+Table.swift`).
///
/// - Important: protocol/host-api.md §5 — rules are data: lowercase, `_` → `-`, first matching rule wins,
///   no match (or no locale) → the default locale.
public struct NotificationTitles: Sendable {
    private struct Rule: Sendable {
        var alternatives: [String]
        var locale: String

        func matches(_ tag: String) -> Bool {
            alternatives.contains { alternative in
                if alternative.hasSuffix("*") { return tag.hasPrefix(alternative.dropLast()) }
                return tag == alternative || tag.hasPrefix(alternative + "-")
            }
        }
    }

    /// The locale used when nothing matches.
    public let defaultLocale: String
    private let strings: [String: [String: String]]
    private let rules: [Rule]
    private let unknownTypeKey: String
    private let bodyFallbackKey: String

    /// The table compiled into the host.
    public static func bundled() throws -> NotificationTitles {
        try NotificationTitles(json: Array(bundledJSON.utf8))
    }

    /// Parses the table; throws when a locale lacks a key or a rule names an unknown locale.
    public init(json: [UInt8]) throws {
        let root = try JSONValue.parse(json)
        guard let defaultLocale = root["defaultLocale"]?.stringValue,
              let keys = root["keys"]?.arrayValue?.compactMap(\.stringValue),
              let locales = root["locales"]?.objectValue,
              let unknownTypeKey = root["unknownTypeKey"]?.stringValue,
              let bodyFallbackKey = root["bodyFallbackKey"]?.stringValue,
              let ruleValues = root["normalization"]?.arrayValue else {
            throw HostSettingsError("notification-titles.json lacks defaultLocale, keys, locales, unknownTypeKey, bodyFallbackKey or normalization")
        }
        var strings: [String: [String: String]] = [:]
        for (locale, value) in locales.members {
            var table: [String: String] = [:]
            for key in keys {
                guard let text = value[key]?.stringValue, !text.isEmpty else {
                    throw HostSettingsError("notification-titles.json: locale \(locale) lacks \(key)")
                }
                table[key] = text
            }
            strings[locale] = table
        }
        rules = try ruleValues.map { value in
            guard let match = value["match"]?.stringValue, let locale = value["locale"]?.stringValue, strings[locale] != nil else {
                throw HostSettingsError("notification-titles.json: a normalization rule lacks match or names an unknown locale")
            }
            return Rule(alternatives: match.split(separator: "|").map(String.init), locale: locale)
        }
        guard strings[defaultLocale] != nil else { throw HostSettingsError("notification-titles.json: no strings for defaultLocale") }
        self.defaultLocale = defaultLocale
        self.strings = strings
        self.unknownTypeKey = unknownTypeKey
        self.bodyFallbackKey = bodyFallbackKey
    }

    /// The table's locale for a device's locale tag (`zh-Hant-TW` → `zh-TW`, `pt` → `pt-BR`).
    public func normalize(_ tag: String?) -> String {
        guard let tag, !tag.isEmpty else { return defaultLocale }
        let lowered = String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
        return rules.first { $0.matches(lowered) }?.locale ?? defaultLocale
    }

    /// The scenario title for `key` (an event type) in `locale` (already normalised).
    public func title(_ key: String, locale: String) -> String {
        let table = strings[locale] ?? strings[defaultLocale]!
        return table[key] ?? table[unknownTypeKey]!
    }

    /// The localized word used as the body when a session has no name.
    public func fallbackBody(locale: String) -> String { title(bodyFallbackKey, locale: locale) }
}
