import Foundation
import PushgateCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files the tool reads (inputs, JWKs) and creates (private keys, mode 0600).
enum ToolFile {
    /// The bytes of `path`, or standard input when `path` is `nil` or `-`.
    static func read(_ path: String?) throws(ToolFailure) -> [UInt8] {
        guard let path, path != "-" else { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else { throw ToolFailure("cannot read \(path)") }
        return Array(data)
    }

    /// The JSON object in `path`.
    static func readObject(_ path: String) throws(ToolFailure) -> JSONObject {
        let bytes = try read(path)
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw ToolFailure("\(path): \(error)") }
        guard let object = value.objectValue else { throw ToolFailure("\(path): not a JSON object") }
        return object
    }

    /// The private key of a private JWK file.
    static func privateKey(_ path: String) throws -> P256PrivateKey {
        let jwk = try readObject(path)
        guard jwk["d"] != nil else { throw ToolFailure("\(path) holds a public key; signing needs the private JWK") }
        return try P256PrivateKey(jwk: jwk)
    }

    /// The public key of a public or private JWK file.
    static func publicKey(_ path: String) throws -> P256PublicKey {
        let jwk = try readObject(path)
        return jwk["d"] != nil ? try P256PrivateKey(jwk: jwk).publicKey : try P256PublicKey(jwk: jwk)
    }

    /// Creates `path` with mode 0600 from the start (never widened then narrowed) and writes
    /// `contents`; refuses to replace an existing file.
    static func createSecret(_ path: String, contents: [UInt8]) throws(ToolFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ToolFailure("cannot create \(path): \(String(cString: strerror(errno)))") }
        var written = 0
        var failure: String?
        while failure == nil, written < contents.count {
            let count = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if errno != EINTR {
                failure = String(cString: strerror(errno))
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(path)
            throw ToolFailure("cannot write \(path): \(failure)")
        }
    }
}
