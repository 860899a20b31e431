/// The command line is wrong: the tool prints the message and the usage, exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The command could not do its work: the tool prints the message, exit status 1.
struct ToolFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
