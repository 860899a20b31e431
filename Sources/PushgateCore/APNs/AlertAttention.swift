/// How an alert asks for the user's attention (docs/app-integration.md): its interruption
/// level, its relevance among the app's notifications, and the category that gives it buttons.
/// The relay's `send` carries the three as unsigned extension fields (`interruptionLevel`,
/// `relevanceScore`, `category`, docs/relay.md "Attention"), written into `aps`; an Android
/// token reads the level as its priority.
public struct AlertAttention: Sendable, Equatable {
    /// `aps.interruption-level`. `critical` is not one of them: it needs an entitlement Apple
    /// grants to few apps, and any host bound to a token could otherwise ask for it.
    public enum Level: String, Sendable, CaseIterable {
        case passive, active
        case timeSensitive = "time-sensitive"
    }

    public var level: Level?
    /// `aps.relevance-score`, 0 to 1.
    public var relevance: Double?
    /// `aps.category`: the notification category the app registered (``isValidCategory(_:)``).
    public var category: String?

    public init(level: Level? = nil, relevance: Double? = nil, category: String? = nil) {
        self.level = level
        self.relevance = relevance
        self.category = category
    }

    /// No level, relevance or category: the alert as OpenChamber's relay sends it.
    public static let none = AlertAttention()

    /// The category of a permission prompt; the app registers Allow and Deny for it.
    public static let permissionCategory = "PUSHGATE_PERMISSION"
    /// The category of a question; the app registers a text Reply for it.
    public static let questionCategory = "PUSHGATE_QUESTION"

    /// A category is 1–64 bytes of `[A-Za-z0-9_.-]`: an identifier the app registered, never text.
    public static func isValidCategory(_ category: String) -> Bool {
        !category.isEmpty && category.utf8.count <= 64 && category.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// A relevance score is a finite number from 0 to 1.
    public static func isValidRelevance(_ score: Double) -> Bool { score.isFinite && (0...1).contains(score) }

    /// The members written into `aps`: `interruption-level`, `relevance-score`, `category`.
    public var apsMembers: [(String, JSONValue)] { members(level: "interruption-level", relevance: "relevance-score") }

    /// The members of a signed `send` body: `interruptionLevel`, `relevanceScore`, `category`.
    public var sendFields: [(String, JSONValue)] { members(level: "interruptionLevel", relevance: "relevanceScore") }

    private func members(level levelKey: String, relevance relevanceKey: String) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let level { members.append((levelKey, .string(level.rawValue))) }
        if let relevance { members.append((relevanceKey, .double(relevance))) }
        if let category { members.append(("category", .string(category))) }
        return members
    }
}
