import Foundation

/// A fake push provider on loopback (``FakeAPNs``, ``FakeFCM``): started from its configuration,
/// answering per-token scripts, trusted through its self-signed certificate. The transport and
/// its faults are the same for every provider (``FakeProvider/goAway(afterStreams:)`` and the
/// other extensions).
public protocol FakeProvider: AnyObject, Sendable {
    associatedtype Configuration: FakeProviderConfiguration
    /// How the fake answers an otherwise valid request for one token.
    associatedtype Script: Sendable

    /// Starts listening and serving on a thread of its own.
    init(configuration: Configuration) throws
    /// The listener, I/O thread and connection faults.
    var server: FakeHTTP2Server { get }
    /// Answers the next valid requests for `token` with `sequence` in order, the last one
    /// repeating (each valid request for the token takes one step). Empty: back to success.
    func script(token: String, sequence: [Script])
}

extension FakeProvider {
    /// The port the fake listens on, on 127.0.0.1.
    public var port: UInt16 { server.port }
    /// The server certificate (PEM); clients trust it as their extra CA file.
    public var certificatePEM: String { server.certificatePEM }
    /// `https://127.0.0.1:<port>`: the origin clients send to.
    public var origin: String { "https://127.0.0.1:\(port)" }

    /// Answers valid requests for `token` with `script` from now on (nil: back to success).
    public func script(token: String, _ script: Script?) {
        self.script(token: token, sequence: script.map { [$0] } ?? [])
    }

    /// Writes the fake's certificate (PEM) to `path`, for a client's extra-CA setting.
    public func writeCertificate(to path: String) throws {
        try certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Closes every connection and the listener, and waits for the I/O thread to end. Idempotent.
    public func stop() { server.stop() }
}
