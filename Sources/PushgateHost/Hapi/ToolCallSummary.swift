import Foundation
import PushgateCore

/// The `compact` and `detailed` descriptions of a tool call, from its arguments.
///
/// - Important: protocol/hapi-push.md §9 (`permission-request`, tool table) — both are `""` when the
///   arguments are not an object; `file` is `file_path`, else `path`; `n` is 120.
struct ToolCallSummary: Equatable {
    /// The `n` of the `detailed` cuts.
    static let detailLimit = 120

    var compact: String
    var detailed: String

    init(tool: String, arguments: JSONValue?) {
        guard let object = arguments?.objectValue else {
            compact = ""
            detailed = ""
            return
        }
        func text(_ key: String) -> String { object[key]?.stringValue ?? "" }
        let n = Self.detailLimit
        let file = text("file_path").isEmpty ? text("path") : text("file_path")
        let fileLine = "File: " + HapiText.cut(file.isEmpty ? "unknown" : file, n)
        switch tool {
        case "Edit":
            compact = HapiText.short(file)
            detailed = fileLine
            if !text("old_string").isEmpty { detailed += "\nOld: \"\(HapiText.cut(text("old_string"), 50))\"" }
            if !text("new_string").isEmpty { detailed += "\nNew: \"\(HapiText.cut(text("new_string"), 50))\"" }
        case "Write":
            compact = HapiText.short(file)
            detailed = fileLine + (text("content").isEmpty ? "" : " (\(HapiText.len16(text("content"))) chars)")
        case "Read":
            compact = HapiText.short(file)
            detailed = fileLine
        case "Bash":
            compact = HapiText.cut(text("command"), 60)
            detailed = "Command: " + HapiText.cut(text("command"), n)
        case "Agent", "Task":
            let task = text("description").isEmpty ? text("prompt") : text("description")
            compact = HapiText.cut(task, 60)
            detailed = "Task: " + HapiText.cut(task, n)
        case "Grep", "Glob":
            compact = HapiText.cut(text("pattern"), 60)
            detailed = "Pattern: " + HapiText.cut(text("pattern"), n)
            if !text("path").isEmpty { detailed += "\nPath: " + HapiText.cut(text("path"), 80) }
        case "WebFetch":
            let url = text("url")
            compact = Self.host(of: url) ?? HapiText.cut(url, 60)
            detailed = "URL: " + HapiText.cut(url, n)
        case "TodoWrite":
            let count = object["todos"]?.arrayValue?.count ?? 0
            compact = "\(count) items"
            detailed = "Updating \(count) todo items"
        default:
            compact = ""
            let json = JSONValue.object(object).serialized()
            detailed = HapiText.len16(json) > 10 ? "Args: " + HapiText.cut(json, n) : ""
        }
    }

    /// The host part of an absolute URL, as a URL parser reads it.
    private static func host(of text: String) -> String? {
        guard let components = URLComponents(string: text), components.scheme != nil,
              let host = components.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }
}
