import PushgateCore

/// The `AGENT_NOTIFY_SUMMARY {…}` footer an agent may end its message with, and the
/// `notifySummary` text built from it.
///
/// - Important: protocol/hapi-push.md §9 (`ready`) — only the last non-blank line is searched; a marker
///   mentioned in prose (text before it, white space just before it) is skipped; the
///   `notifySummary` members keep the order `version, summary, action, status, agent, project`
///   and are not sorted.
struct AgentNotifySummary: Equatable {
    /// The marker, with its one trailing space.
    static let marker = "AGENT_NOTIFY_SUMMARY "

    /// `version`, when the footer had a number there (written back in JavaScript's format).
    var version: JSONValue?
    var summary: String?
    var action: String?
    var status: String?
    var agent: String?
    var project: String?

    /// The footer at the end of `text`, or `nil` when it has none.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let lastLine = lines.last(where: { !HapiText.isBlank(String($0)) }) else { return nil }
        let line = HapiText.trimTrailing(String(lastLine))
        guard let footer = Self.footerObject(in: line) else { return nil }
        version = footer["version"].flatMap { $0.doubleValue == nil ? nil : $0 }
        summary = footer["summary"]?.stringValue
        action = footer["action"]?.stringValue
        status = footer["status"]?.stringValue
        agent = footer["agent"]?.stringValue
        project = footer["project"]?.stringValue
    }

    /// The compact JSON text for the payload's `notifySummary`, given the body's `summaryLine`.
    func notifySummary(summaryLine: String) -> String {
        var object = JSONObject()
        if let version { object["version"] = version }
        object["summary"] = .string(summaryLine)
        for (key, value, limit) in [("action", action, 280), ("status", status, 32), ("agent", agent, 80), ("project", project, 80)] {
            if let value, !value.isEmpty { object[key] = .string(HapiText.clip(value, limit)) }
        }
        return object.serialized()
    }

    private static func footerObject(in line: String) -> JSONObject? {
        let scalars = Array(line.unicodeScalars)
        let markerScalars = Array(marker.unicodeScalars)
        var start = 0
        while start + markerScalars.count <= scalars.count {
            guard let index = firstIndex(of: markerScalars, in: scalars, from: start) else { return nil }
            start = index + 1
            let before = scalars[..<index]
            let mentionedInProse = before.contains { !HapiText.isSpace($0) } && HapiText.isSpace(scalars[index - 1])
            if mentionedInProse { continue }
            var rest = String.UnicodeScalarView()
            rest.append(contentsOf: scalars[(index + markerScalars.count)...])
            let candidate = HapiText.trim(String(rest))
            guard candidate.hasPrefix("{"), candidate.hasSuffix("}"),
                  let object = (try? JSONValue.parse(candidate))?.objectValue else { continue }
            return object
        }
        return nil
    }

    private static func firstIndex(of needle: [Unicode.Scalar], in haystack: [Unicode.Scalar], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
