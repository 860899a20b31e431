/// A test helper process could not be started, failed, or did not answer in time.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    public let command: String
    public let reason: String
    public var description: String { "\(command) failed: \(reason)" }

    public init(command: String, reason: String) {
        self.command = command
        self.reason = reason
    }
}
