/// Why the host's home or settings could not be used; the message names the setting or file
/// and never contains a secret.
public struct HostSettingsError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
