/// The arguments after a command name: `--name value` options and positional words.
///
/// Every option takes exactly one value (`--key FILE` or `--key=FILE`); the word after an
/// option is its value even when it starts with `-`. Commands take what they know and call
/// ``finish()`` so anything left over is a usage error.
package struct ArgumentList {
    private var options: [String: String] = [:]
    private var positionals: [String] = []

    package init(_ words: some Sequence<String>) throws(UsageError) {
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            guard word.hasPrefix("--"), word.count > 2 else {
                positionals.append(word)
                continue
            }
            let option = word.dropFirst(2)
            let name: String
            let value: String
            if let equals = option.firstIndex(of: "=") {
                name = String(option[..<equals])
                value = String(option[option.index(after: equals)...])
            } else {
                name = String(option)
                guard let next = iterator.next() else { throw UsageError("--\(name) needs a value") }
                value = next
            }
            guard options[name] == nil else { throw UsageError("--\(name) given twice") }
            options[name] = value
        }
    }

    /// Removes and returns the next positional word, if any.
    package mutating func nextPositional() -> String? {
        positionals.isEmpty ? nil : positionals.removeFirst()
    }

    /// Removes and returns the value of `--name`, or `nil` when it was not given.
    package mutating func option(_ name: String) -> String? {
        options.removeValue(forKey: name)
    }

    /// Removes and returns the value of `--name`; a usage error when it was not given.
    package mutating func requiredOption(_ name: String) throws(UsageError) -> String {
        guard let value = option(name) else { throw UsageError("--\(name) is required") }
        return value
    }

    /// Fails on any option or positional word no command took.
    package func finish() throws(UsageError) {
        if let name = options.keys.sorted().first { throw UsageError("unknown option --\(name)") }
        if let word = positionals.first { throw UsageError("unexpected argument \(word)") }
    }
}
