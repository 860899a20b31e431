import PushgateCore

/// What `pushgate gateway` printed for a request: `<status> <JSON answer>` on one line.
enum GatewayAnswer {
    /// The JSON answer of a 2xx line.
    static func json(_ line: String) throws -> JSONValue {
        guard line.hasPrefix("2"), let space = line.firstIndex(of: " ") else {
            throw UnexpectedAnswer(description: "gateway tool: \(line)")
        }
        return try JSONValue.parse(String(line[line.index(after: space)...]).trimmingCharacters(in: .newlines))
    }

    /// A send's `status` by registration id; `nil` when the line is not a 2xx answer.
    static func statuses(_ line: String) -> [String: String]? {
        guard let results = (try? json(line))?["results"]?.arrayValue else { return nil }
        return Dictionary(results.compactMap { result in
            guard let id = result["registrationId"]?.stringValue, let status = result["status"]?.stringValue else { return nil }
            return (id, status)
        }, uniquingKeysWith: { first, _ in first })
    }
}
