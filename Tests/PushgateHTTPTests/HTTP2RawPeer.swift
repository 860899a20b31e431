import Foundation
import Glibc
import PushgateHTTP
import PushgateTesting
import Synchronization

/// A hand-driven TLS server for the failures the fake APNs cannot produce: it completes the TLS
/// handshake with the given ALPN list, optionally sends one empty SETTINGS frame, then never
/// answers anything; it reports the type of every HTTP/2 frame the client sends.
final class HTTP2RawPeer: Sendable {
    let port: UInt16
    let certificatePEM: String
    /// HTTP/2 frame types received from clients, in order.
    let frameTypes: AsyncStream<UInt8>
    private let stopped = StopFlag()
    private let finished = DispatchSemaphore(value: 0)

    init(alpn: [String], sendsSettings: Bool) throws {
        let server = try TLSTestServer(alpn: alpn)
        port = server.listener.port
        certificatePEM = server.certificate.certificatePEM
        let (stream, continuation) = AsyncStream.makeStream(of: UInt8.self)
        frameTypes = stream
        let stopped = self.stopped
        let finished = self.finished
        let serverBox = UncheckedBox(server)
        let thread = Thread {
            PeerLoop(server: serverBox.value, sendsSettings: sendsSettings, report: continuation).run { stopped.isSet }
            continuation.finish()
            finished.signal()
        }
        thread.start()
    }

    /// Raises the stop flag and waits (at most 2 s) for the peer thread; a thread still blocked in
    /// a handshake then ends with the process instead of holding up the test run.
    func stop() {
        guard stopped.set() else { return }
        _ = finished.wait(timeout: .now() + 2)
    }

    deinit { stop() }
}

/// A flag raised once.
private final class StopFlag: Sendable {
    private let raised = Mutex(false)

    var isSet: Bool { raised.withLock { $0 } }

    /// Raises the flag; true only for the first call.
    func set() -> Bool {
        raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
    }
}

/// Hands a non-Sendable value to the one thread that will own it from then on.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

private final class PeerLoop {
    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private let server: TLSTestServer
    private let sendsSettings: Bool
    private let report: AsyncStream<UInt8>.Continuation
    private var peers: [(connection: TLSConnection, handshaken: Bool, received: [UInt8])] = []

    init(server: TLSTestServer, sendsSettings: Bool, report: AsyncStream<UInt8>.Continuation) {
        self.server = server
        self.sendsSettings = sendsSettings
        self.report = report
    }

    func run(until stop: () -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !stop() {
            if let fd = try? server.listener.accept(), let connection = try? TLSConnection(acceptedSocket: fd, context: server.context) {
                peers.append((connection, false, []))
            }
            for index in peers.indices.reversed() {
                if !serve(index, buffer: &buffer) { peers.remove(at: index) }
            }
            var descriptors = [pollfd(fd: server.listener.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            descriptors += peers.map { pollfd(fd: $0.connection.fileDescriptor, events: Int16(POLLIN), revents: 0) }
            _ = poll(&descriptors, nfds_t(descriptors.count), 10)
        }
    }

    /// Advances one connection; false once it is finished.
    private func serve(_ index: Int, buffer: inout [UInt8]) -> Bool {
        let connection = peers[index].connection
        do {
            if !peers[index].handshaken {
                guard try connection.handshake() == .complete else { return true }
                peers[index].handshaken = true
                // An empty SETTINGS frame: length 0, type 4, no flags, stream 0.
                if sendsSettings { _ = try connection.write([0, 0, 0, 4, 0, 0, 0, 0, 0][...]) }
            }
            while case .transferred(let count) = try connection.read(into: &buffer) {
                peers[index].received += buffer[0..<count]
            }
            parseFrames(index)
            return true
        } catch {
            return false
        }
    }

    private func parseFrames(_ index: Int) {
        var data = peers[index].received
        if data.starts(with: Self.preface) { data.removeFirst(Self.preface.count) }
        while data.count >= 9 {
            let length = Int(data[0]) << 16 | Int(data[1]) << 8 | Int(data[2])
            guard data.count >= 9 + length else { break }
            report.yield(data[3])
            data.removeFirst(9 + length)
        }
        peers[index].received = data
    }
}
