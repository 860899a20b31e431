import Foundation

/// A fake push provider on loopback (``FakeAPNs``, ``FakeFCM``): started from its configuration,
/// answering per-token scripts, trusted through its self-signed certificate.
public protocol FakeProvider: AnyObject, Sendable {
    associatedtype Configuration: FakeProviderConfiguration
    /// How the fake answers an otherwise valid request for one token.
    associatedtype Script: Sendable

    /// Starts listening and serving on a thread of its own.
    init(configuration: Configuration) throws
    /// The port the fake listens on, on 127.0.0.1.
    var port: UInt16 { get }
    /// The server certificate (PEM); clients trust it as their extra CA file.
    var certificatePEM: String { get }
    /// Answers valid requests for `token` with `script` from now on (nil: back to success).
    func script(token: String, _ script: Script?)
    /// Closes every connection and the listener, and waits for the I/O thread to end. Idempotent.
    func stop()
}

extension FakeProvider {
    /// `https://127.0.0.1:<port>`: the origin clients send to.
    public var origin: String { "https://127.0.0.1:\(port)" }

    /// Writes the fake's certificate (PEM) to `path`, for a client's extra-CA setting.
    public func writeCertificate(to path: String) throws {
        try certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
