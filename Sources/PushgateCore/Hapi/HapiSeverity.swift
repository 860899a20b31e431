/// The `severity` of a hapi notification payload (an open set, like the type).
///
/// - Important: protocol/hapi-push.md §1 — `ready` and `input-request` are `info`, `permission-request`
///   `warning`, `task-notification` `success` or `error`.
public struct HapiSeverity: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let info = HapiSeverity(rawValue: "info")
    public static let success = HapiSeverity(rawValue: "success")
    public static let warning = HapiSeverity(rawValue: "warning")
    public static let error = HapiSeverity(rawValue: "error")
}
