internal import CLibPQ
import Foundation

/// A validated `postgres://` (or `postgresql://`) connection URL whose printed forms never
/// contain the password.
///
/// `description`, `debugDescription` and reflection all show ``redacted``; only the connection
/// itself reads the full text.
public struct PostgreSQLURL: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL as given, password included. Handed to libpq only.
    let text: String
    /// The password as libpq parsed it (from the user-info part or a `password=` parameter),
    /// so that messages can be scrubbed of it.
    let password: String?

    /// Parses `text` with libpq's own parser and checks what it leaves to connect time (the
    /// port numbers).
    /// - Throws: ``PostgreSQLError`` naming the problem; it never quotes the password.
    public init(_ text: String) throws(PostgreSQLError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw PostgreSQLError(operation: "parse URL", message: "not a postgres:// or postgresql:// URL")
        }
        guard !text.utf8.contains(0) else {
            throw PostgreSQLError(operation: "parse URL", message: "contains a NUL byte")
        }
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &errorMessage) else {
            let reason = errorMessage.map { String(cString: $0) } ?? "out of memory"
            PQfreemem(errorMessage)
            // libpq may quote the offending part, which can be the password.
            let scrubbed = Self.scrub(reason, secrets: Self.writtenPasswords(in: text))
            throw PostgreSQLError(operation: "parse URL", message: scrubbed)
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        if let ports = values["port"], !ports.split(separator: ",", omittingEmptySubsequences: false)
            .allSatisfy({ UInt16($0).map { $0 > 0 } ?? false }) {
            throw PostgreSQLError(operation: "parse URL", message: "the port must be a number from 1 to 65535")
        }
        self.text = text
        password = values["password"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the URL holds a password (in the user-info part or a `password=` parameter).
    public var hasPassword: Bool { password != nil }

    /// The URL with the password (in the user-info part or a `password=` parameter) replaced by `***`.
    public var redacted: String { Self.redact(text) }

    public var description: String { redacted }
    public var debugDescription: String { redacted }
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted]) }

    /// `message` with every form of the password removed.
    func scrub(_ message: String) -> String {
        Self.scrub(message, secrets: (password.map { [$0] } ?? []) + Self.writtenPasswords(in: text))
    }

    private static func scrub(_ message: String, secrets: [String]) -> String {
        var text = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }

    /// The passwords written in the user-info part and in `password=` parameters, as written
    /// and percent-decoded; found without libpq, which may have refused to parse the URL.
    private static func writtenPasswords(in url: String) -> [String] {
        var written: [String] = []
        if let (_, userInfo, _) = authorityParts(of: url), let colon = userInfo.firstIndex(of: ":") {
            written.append(String(userInfo[userInfo.index(after: colon)...]))
        }
        if let query = url.firstIndex(of: "?") {
            for parameter in url[url.index(after: query)...].split(separator: "&") where parameter.lowercased().hasPrefix("password=") {
                written.append(String(parameter.dropFirst("password=".count)))
            }
        }
        return written + written.compactMap(\.removingPercentEncoding)
    }

    private static func redact(_ url: String) -> String {
        var result = url
        if let (prefix, userInfo, rest) = authorityParts(of: url), let colon = userInfo.firstIndex(of: ":") {
            result = prefix + String(userInfo[...colon]) + "***@" + String(rest)
        }
        return redactPasswordParameter(result)
    }

    /// `scheme://`, the user-info (without `@`) and everything after the `@`, when there is user-info.
    private static func authorityParts(of url: String) -> (String, Substring, Substring)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { "/?#".contains($0) } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return (String(url[..<schemeEnd.upperBound]), authority[..<at], url[url.index(after: at)...])
    }

    private static func redactPasswordParameter(_ url: String) -> String {
        guard let query = url.firstIndex(of: "?") else { return url }
        let parameters = url[url.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
        }
        return String(url[...query]) + parameters.joined(separator: "&")
    }
}
