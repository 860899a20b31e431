import Foundation
import PushgateCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files the tool reads (inputs, JWKs) and creates (private keys, mode 0600).
package enum ToolFile {
    /// The bytes of `path`, or standard input when `path` is `nil` or `-`.
    package static func read(_ path: String?) throws(ToolFailure) -> [UInt8] {
        guard let path, path != "-" else { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else { throw ToolFailure("cannot read \(path)") }
        return Array(data)
    }

    /// The JSON object in `path`.
    package static func readObject(_ path: String) throws(ToolFailure) -> JSONObject {
        let bytes = try read(path)
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw ToolFailure("\(path): \(error)") }
        guard let object = value.objectValue else { throw ToolFailure("\(path): not a JSON object") }
        return object
    }

    /// The private key of a private JWK file.
    package static func privateKey(_ path: String) throws -> P256PrivateKey {
        let jwk = try readObject(path)
        guard jwk["d"] != nil else { throw ToolFailure("\(path) holds a public key; signing needs the private JWK") }
        return try P256PrivateKey(jwk: jwk)
    }

    /// The public key of a public or private JWK file.
    package static func publicKey(_ path: String) throws -> P256PublicKey {
        let jwk = try readObject(path)
        return jwk["d"] != nil ? try P256PrivateKey(jwk: jwk).publicKey : try P256PublicKey(jwk: jwk)
    }

    /// Creates `path` with mode 0600 from the start (never widened then narrowed) and writes
    /// `contents`; refuses to replace an existing file.
    package static func createSecret(_ path: String, contents: [UInt8]) throws(ToolFailure) {
        do {
            try PrivateFile.create(path, contents: contents)
        } catch {
            throw ToolFailure(error.description)
        }
    }
}
