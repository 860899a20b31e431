import Foundation
import PushgateCore

/// Loads the service account key file an ``FCMClient`` signs with.
///
/// - Important: protocol/hapi-push.md §6 — a missing or blank path, an unreadable file, bad JSON, a
///   missing field or a key that is not RSA all fail; the message names the problem and never
///   echoes the file's contents.
public enum ServiceAccountFile {
    /// Why the file could not be used. ``problem`` reads after the setting's name, e.g.
    /// "`fcmServiceAccountPath` names a file that cannot be read".
    public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        public let problem: String
        public var description: String { problem }
    }

    /// Reads and parses the file at `path` (no `~` expansion: the caller resolves the path).
    public static func load(path: String) throws(LoadError) -> ServiceAccount {
        guard !path.allSatisfy(\.isWhitespace) else { throw LoadError(problem: "is blank") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(problem: "names a file that cannot be read")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(Array(data)) } catch { throw LoadError(problem: "names a file that is not valid JSON") }
        guard let object = json.objectValue else { throw LoadError(problem: "names a file that is not a JSON object") }
        do {
            return try ServiceAccount(object: object)
        } catch let error as CryptoError where error.operation == "service account" {
            throw LoadError(problem: "names a service account file whose \(error.message)")
        } catch {
            throw LoadError(problem: "names a service account whose private_key is not an RSA PKCS#8 PEM of 2048 bits or more")
        }
    }
}
