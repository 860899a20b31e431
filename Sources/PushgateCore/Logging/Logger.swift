import Foundation
import Synchronization

/// A small structured logger: one line per record, `level`, `msg` and key-value metadata.
///
/// - Important: never pass device tokens, signatures, JWTs, key material, titles, bodies or
///   `data` values (protocol/signed-relay.md §9). Use ``Redact`` for the allowed token and serverId forms.
public struct Logger: Sendable {
    /// Severity levels, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// The lower-case name written in records and accepted from `PUSHGATE_LOG_LEVEL`.
        public var name: String { ["debug", "info", "warning", "error"][rawValue] }

        /// Parses a level name (`warn` is accepted for `warning`).
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// Where records go.
    public protocol Sink: Sendable {
        func write(_ line: String)
    }

    /// Writes each record as one line to standard error.
    public struct StandardErrorSink: Sink {
        public init() {}
        public func write(_ line: String) {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// Keeps records in memory, for tests that scan what was logged.
    final class MemorySink: Sink {
        private let storage = Mutex<[String]>([])
        init() {}
        func write(_ line: String) { storage.withLock { $0.append(line) } }
        /// Every line written so far.
        var lines: [String] { storage.withLock { $0 } }
    }

    /// The component name written as `component` on every record.
    public let component: String
    /// Records below this level are dropped.
    public let minimumLevel: Level
    private let sink: any Sink

    public init(component: String, minimumLevel: Level = .info, sink: any Sink = StandardErrorSink()) {
        self.component = component
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// The level named by `PUSHGATE_LOG_LEVEL`, or `info`.
    public static func levelFromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Level {
        environment["PUSHGATE_LOG_LEVEL"].flatMap(Level.init(name:)) ?? .info
    }

    /// The same logger under another component name.
    public func named(_ component: String) -> Logger {
        Logger(component: component, minimumLevel: minimumLevel, sink: sink)
    }

    // The message and metadata are built only when the level is enabled: a per-request
    // `info` line under `PUSHGATE_LOG_LEVEL=warning` then costs one comparison.
    public func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        logIfEnabled(.debug, message, metadata)
    }
    public func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        logIfEnabled(.info, message, metadata)
    }
    public func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        logIfEnabled(.warning, message, metadata)
    }
    public func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        logIfEnabled(.error, message, metadata)
    }

    private func logIfEnabled(_ level: Level, _ message: () -> String, _ metadata: () -> KeyValuePairs<String, String>) {
        if level >= minimumLevel { log(level, message(), metadata()) }
    }

    /// Writes one record if `level` is enabled: `level=… component=… msg="…" key=value …`.
    public func log(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, String>) {
        guard level >= minimumLevel else { return }
        var line = "level=\(level.name) component=\(component) msg=\(Self.quote(message))"
        for (key, value) in metadata { line += " \(key)=\(Self.quote(value))" }
        sink.write(line)
    }

    private static func quote(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy {
            $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "=" && $0 != "\\"
        }
        if plain { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
