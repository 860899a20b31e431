/// A relay setting that is missing or invalid; start-up stops with this message.
///
/// - Important: the message names the setting and never contains its value, so a secret
///   cannot leak through it (protocol/signed-relay.md §8).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting's name as the operator types it.
    public let setting: String
    /// What is wrong and what to do.
    public let problem: String

    public var description: String { "invalid configuration: \(setting) \(problem)" }
}
