import PushgateCore
import PushgateHTTP
import Synchronization

/// The transport every fake provider shares: a TLS (ALPN h2) listener on 127.0.0.1 served by
/// one loop thread (``FakeServerLoop``), with the stream policy and commands of
/// ``FakeServerControl``. What a request gets is up to its ``FakeServerResponder``.
///
/// Public only as ``FakeProvider/server``: its port, certificate, faults and stop are reached
/// through the ``FakeProvider`` extensions, written once for every provider.
public final class FakeHTTP2Server: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: UInt16
    /// The server certificate (PEM); clients trust it as their extra CA file.
    let certificatePEM: String
    let control: FakeServerControl

    private let loop: FakeServerLoop
    private let stopped = Mutex(false)

    /// Starts listening as `configuration` says and serving on a loop thread of its own; `name`
    /// tells this server's log lines apart, and the responder `makeResponder` makes is used only
    /// on the loop thread.
    init(configuration: some FakeProviderConfiguration, name: String,
         makeResponder: () -> any FakeServerResponder) throws {
        let certificate = try configuration.certificate ?? SelfSignedCertificate.generate()
        let context = try TLSContext.server(certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM, alpn: ["h2"])
        let listener = try TCPListener(host: "127.0.0.1", port: configuration.port)
        let control = FakeServerControl(maxConcurrentStreams: configuration.maxConcurrentStreams)
        port = listener.port
        certificatePEM = certificate.certificatePEM
        self.control = control
        loop = try FakeServerLoop(listener: listener, context: context, control: control, responder: makeResponder(),
                                  name: name, logger: configuration.logger)
    }

    deinit { stop() }

    /// Hands `command` to the loop thread.
    func command(_ command: FakeServerControl.Command) {
        loop.run(command)
    }

    /// Closes every connection and the listener, and waits for the loop thread to end. Idempotent.
    func stop() {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        loop.stop()
    }
}
