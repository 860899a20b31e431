/// The command line is wrong: the tool prints the message and the usage, exit status 2.
package struct UsageError: Error {
    package let message: String
    package init(_ message: String) { self.message = message }
}

/// The command could not do its work: the tool prints the message, exit status 1.
package struct ToolFailure: Error {
    package let message: String
    package init(_ message: String) { self.message = message }
}
