internal import CLinux
import Glibc

/// One HTTP/2 connection: a ``TLSConnection`` carrying the bytes of an ``HTTP2ClientSession``.
/// It moves bytes and frames only; what to send, when to PING and when to give up is the pool's state
/// machine's (``HTTP2PoolStateMachine``), which it tells what happened through its driver. Owned
/// and driven by one ``HTTP2PoolDriver``, on its loop thread; nothing here blocks.
final class HTTP2Connection {
    enum State: Equatable {
        /// TCP connect and TLS handshake.
        case handshaking
        /// The nghttp2 session runs.
        case session
        case closed
    }

    private static let outputBatchBytes = 64 * 1024
    private static let inputBufferBytes = 64 * 1024
    /// Reads per wake-up, so one busy connection cannot starve the others on the loop.
    private static let readsPerWakeUp = 32

    unowned let driver: HTTP2PoolDriver
    let id: HTTP2PoolStateMachine.ConnectionID
    let origin: HTTP2Origin
    let peer: String
    private let tls: TLSConnection
    private var session: HTTP2ClientSession?
    private(set) var state: State = .handshaking
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var input: [UInt8]
    private var wantsWritable = true
    /// The read budget ran out with data possibly still buffered.
    private(set) var hasUnreadInput = false
    private let maxResponseBodyBytes: Int

    init(driver: HTTP2PoolDriver, id: HTTP2PoolStateMachine.ConnectionID, origin: HTTP2Origin, address: SocketAddress,
         context: TLSContext, maxResponseBodyBytes: Int) throws(HTTP2ClientError) {
        self.driver = driver
        self.id = id
        self.origin = origin
        self.peer = "\(address)"
        do {
            tls = try TLSConnection.connect(to: address, serverName: origin.host, context: context)
        } catch let error as TLSError {
            throw HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(address)", tls: error)
        } catch {
            throw HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(address): \(error)")
        }
        input = [UInt8](repeating: 0, count: Self.inputBufferBytes)
        output.reserveCapacity(Self.outputBatchBytes + 16 * 1024)
        self.maxResponseBodyBytes = max(0, maxResponseBodyBytes)
    }

    var fileDescriptor: Int32 { tls.fileDescriptor }

    /// The epoll(7) events this connection waits for.
    var epollEvents: UInt32 {
        guard state != .closed else { return 0 }
        return EPOLLIN.rawValue | (wantsWritable ? EPOLLOUT.rawValue : 0)
    }

    /// The events its driver watches the descriptor for (0: not watched).
    var watchedEvents: UInt32 = 0

    // MARK: I/O

    /// The socket is ready (or has buffered input): advance the handshake or read what arrived.
    func handleEvents() {
        switch state {
        case .handshaking: advanceHandshake()
        case .session: readAvailable()
        case .closed: break
        }
    }

    private func advanceHandshake() {
        do {
            switch try tls.handshake() {
            case .wantRead: wantsWritable = false
            case .wantWrite: wantsWritable = true
            case .complete:
                guard tls.negotiatedProtocol == "h2" else {
                    throw TLSError(.alpnRefused, operation: "handshake with \(peer)",
                                   detail: "the server chose \(tls.negotiatedProtocol ?? "no protocol"), not h2")
                }
                try startSession()
                state = .session
                wantsWritable = true
                readAvailable()
            }
        } catch let error as TLSError {
            close(HTTP2ClientError(.connectFailed, detail: "cannot connect to \(origin) at \(peer)", tls: error))
        } catch {
            close(error as? HTTP2ClientError ?? HTTP2ClientError(.connectFailed, detail: "\(error)"))
        }
    }

    private func startSession() throws {
        session = try HTTP2ClientSession(callbacks: driver.callbacks, origin: origin, maxResponseBodyBytes: maxResponseBodyBytes)
    }

    private func readAvailable() {
        guard let session else { return }
        hasUnreadInput = false
        var received = false
        defer { if received { driver.record(.bytesReceived(id)) } }
        for _ in 0..<Self.readsPerWakeUp {
            let result: TLSConnection.IOResult
            do {
                result = try input.withUnsafeMutableBytes { try tls.read(into: $0) }
            } catch let error as TLSError {
                return close(HTTP2ClientError(.connectionLost, detail: "reading from \(origin) failed", tls: error))
            } catch {
                return close(HTTP2ClientError(.connectionLost, detail: "\(error)"))
            }
            switch result {
            case .transferred(let count):
                received = true
                do {
                    try input.withUnsafeBufferPointer { bytes throws(HTTP2ClientError) in
                        try session.receive(UnsafeBufferPointer(rebasing: bytes[..<count]))
                    }
                } catch {
                    passOnEvents(of: session)
                    return close(error)
                }
                passOnEvents(of: session)
            case .wantRead:
                return
            case .wantWrite:
                wantsWritable = true
                return
            case .closed:
                return close(HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection"))
            }
        }
        hasUnreadInput = true
    }

    /// Serialises everything nghttp2 has queued into one buffer and writes it with as few
    /// SSL_write calls as the socket allows. Closes a connection that has nothing left to do.
    func flush() {
        guard let session, state == .session else { return }
        while true {
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                do {
                    try session.appendOutput(to: &output, limit: Self.outputBatchBytes)
                } catch {
                    passOnEvents(of: session)
                    return close(error)
                }
                passOnEvents(of: session)
                if output.isEmpty {
                    wantsWritable = false
                    break
                }
            }
            let result: TLSConnection.IOResult
            do {
                result = try tls.write(output[outputOffset...])
            } catch let error as TLSError {
                return close(HTTP2ClientError(.connectionLost, detail: "writing to \(origin) failed", tls: error))
            } catch {
                return close(HTTP2ClientError(.connectionLost, detail: "\(error)"))
            }
            switch result {
            case .transferred(let count): outputOffset += count
            case .wantWrite:
                wantsWritable = true
                return
            case .wantRead:
                wantsWritable = false
                return
            case .closed:
                return close(HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection"))
            }
        }
        if session.isFinished {
            close(HTTP2ClientError(.connectionLost, detail: "\(origin) closed the connection"))
        }
    }

    // MARK: Streams

    /// Opens a stream for a request; the state machine checked the server's stream limit.
    func submit(_ requestID: UInt64, headers: HeaderBlock, body: [UInt8]) -> HTTP2ClientSession.Submission {
        guard let session, state == .session else { return .unavailable }
        return session.submit(requestID, headers: headers, body: body)
    }

    /// Abandons a request's stream (deadline or cancellation): RST_STREAM(CANCEL).
    func reset(_ requestID: UInt64) {
        session?.reset(requestID)
    }

    func sendPing() {
        session?.sendPing()
    }

    // MARK: Closing

    /// Says GOAWAY, sends close_notify and closes; requests that may have reached the server fail with `shutdown`.
    func closeGracefully() {
        guard state != .closed else { return }
        if let session {
            session.terminate()
            flushOnce(session)
            tls.shutdown()
        }
        close(HTTP2ClientError(.shutdown, detail: "the connection was closed"))
    }

    private func flushOnce(_ session: HTTP2ClientSession) {
        // Best effort: the socket closes right after, and nothing waits on these bytes.
        try? session.appendOutput(to: &output, limit: .max)
        passOnEvents(of: session)
        if outputOffset < output.count { _ = try? tls.write(output[outputOffset...]) }
    }

    /// Closes at once and tells the driver which requests may have reached the server.
    func close(_ error: HTTP2ClientError) {
        guard state != .closed else { return }
        state = .closed
        wantsWritable = false
        hasUnreadInput = false
        let sent = session?.sentRequestIDs ?? []
        session = nil
        driver.connectionClosed(self, error, sent: sent)
    }

    /// Hands the driver what the session's last call found.
    private func passOnEvents(of session: HTTP2ClientSession) {
        for event in session.takeEvents() {
            switch event {
            case .settingsReceived(let limit): driver.record(.settingsReceived(id, maxConcurrentStreams: limit))
            case .goawayReceived(let lastStreamID, let errorCode): driver.goawayReceived(self, lastStreamID: lastStreamID, errorCode: errorCode)
            case .streamClosed(let requestID, let outcome): driver.record(.streamClosed(id, requestID, outcome))
            }
        }
    }
}
