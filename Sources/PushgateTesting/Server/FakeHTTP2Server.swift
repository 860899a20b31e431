import Dispatch
import Foundation
import PushgateCore
import PushgateHTTP
import Synchronization

/// The transport every fake provider shares: a TLS (ALPN h2) listener on 127.0.0.1 served by
/// one I/O thread, with the stream policy and commands of ``FakeServerControl``. What a request
/// gets is up to the ``FakeServerResponder`` made on that thread.
///
/// Public only as ``FakeProvider/server``: its port, certificate, faults and stop are reached
/// through the ``FakeProvider`` extensions, written once for every provider.
public final class FakeHTTP2Server: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: UInt16
    /// The server certificate (PEM); clients trust it as their extra CA file.
    let certificatePEM: String
    let control: FakeServerControl

    private let wakeup: LoopWaker
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    /// Starts listening as `configuration` says and serving on a thread called `name`;
    /// `makeResponder` runs on it.
    init(configuration: some FakeProviderConfiguration, name: String,
         makeResponder: @escaping @Sendable () -> any FakeServerResponder) throws {
        let certificate = try configuration.certificate ?? SelfSignedCertificate.generate()
        let context = try TLSContext.server(certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM, alpn: ["h2"])
        let listener = try TCPListener(host: "127.0.0.1", port: configuration.port)
        let control = FakeServerControl(maxConcurrentStreams: configuration.maxConcurrentStreams)
        let logger = configuration.logger
        let wakeup = try LoopWaker()
        self.port = listener.port
        certificatePEM = certificate.certificatePEM
        self.control = control
        self.wakeup = wakeup
        let finished = finished
        let thread = Thread {
            FakeServerLoop(listener: listener, context: context, control: control, wakeup: wakeup,
                           responder: makeResponder(), name: name, logger: logger).run()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    deinit { stop() }

    /// Hands `command` to the I/O thread and wakes it.
    func command(_ command: FakeServerControl.Command) {
        control.enqueue(command)
        wakeup.wake()
    }

    /// Closes every connection and the listener, and waits for the I/O thread to end. Idempotent.
    func stop() {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        command(.stop)
        finished.wait()
    }
}
