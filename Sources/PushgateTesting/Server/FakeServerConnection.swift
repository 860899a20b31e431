internal import CLinux
import PushgateHTTP

/// One accepted connection of a fake server: TLS handshake, then HTTP/2 frames in and out, and
/// the stream rules (GOAWAY after N streams, drop after N streams, reset every Nth request).
///
/// Not thread-safe: the fake's ``FakeServerLoop`` owns it and uses it on its loop thread.
final class FakeServerConnection {
    enum Phase: Equatable {
        case handshaking(TLSConnection.HandshakeStatus)
        case open
        case closed
    }

    /// What a connection needs from the server while it handles requests.
    struct Environment {
        let control: FakeServerControl
        let responder: any FakeServerResponder
        var policy: FakeServerControl.Policy
        var delayed: DelayedResponseQueue
    }

    let id: Int
    private(set) var phase: Phase = .handshaking(.wantRead)
    /// The most streams this connection has had open at once.
    private(set) var peakOpenStreams = 0

    private let tls: TLSConnection
    private let session: HTTP2ServerSession
    private var readBuffer = [UInt8](repeating: 0, count: 32 * 1024)
    private var output: [UInt8] = []
    private var outputSent = 0
    private var writeWaitsForRead = false
    private var readWaitsForWrite = false
    private var openStreams: Set<Int32> = []
    private var streamsOpened = 0
    private var goAwayLastStreamId: Int32?

    init(id: Int, socket: Int32, context: TLSContext, maxConcurrentStreams: Int) throws {
        self.id = id
        tls = try TLSConnection(acceptedSocket: socket, context: context)
        session = try HTTP2ServerSession(maxConcurrentStreams: maxConcurrentStreams)
    }

    var fileDescriptor: Int32 { tls.fileDescriptor }

    /// The epoll events this connection waits for.
    var epollEvents: UInt32 {
        switch phase {
        case .handshaking(.wantWrite): return EPOLLOUT.rawValue
        case .handshaking: return EPOLLIN.rawValue
        case .open:
            let wantsWritable = readWaitsForWrite || (hasPendingOutput && !writeWaitsForRead)
            return EPOLLIN.rawValue | (wantsWritable ? EPOLLOUT.rawValue : 0)
        case .closed: return 0
        }
    }

    /// The events the loop watches it for now; nil before the first watch.
    var watchedEvents: UInt32?

    private var hasPendingOutput: Bool { outputSent < output.count }

    /// Whether the connection is done and can be released (closing its socket).
    var isFinished: Bool { phase == .closed || (phase == .open && session.isFinished && !hasPendingOutput) }

    /// Advances the handshake, or reads everything available and answers what arrived.
    func handleReadiness(_ environment: inout Environment) throws {
        if case .handshaking = phase {
            let status = try tls.handshake()
            guard status == .complete else {
                phase = .handshaking(status)
                return
            }
            phase = .open
        }
        try readAvailable(&environment)
        try flush()
    }

    /// Reads until the socket has nothing more, feeding HTTP/2 and answering each chunk's requests.
    private func readAvailable(_ environment: inout Environment) throws {
        readWaitsForWrite = false
        while phase == .open {
            switch try tls.read(into: &readBuffer) {
            case .transferred(let count):
                try readBuffer.withUnsafeBytes { try session.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                try handle(session.takeEvents(), &environment)
                // One TLS write per chunk read keeps answers flowing while a busy client keeps sending.
                try flush()
            case .wantRead:
                return
            case .wantWrite:
                readWaitsForWrite = true
                return
            case .closed:
                phase = .closed
                return
            }
        }
    }

    /// Sends a response whose scripted delay is over, unless the client already gave up on it.
    func sendDelayed(_ response: FakeHTTP2Response, streamId: Int32) throws {
        guard phase == .open, openStreams.contains(streamId) else { return }
        try session.submitResponse(streamId: streamId, status: response.status, headers: response.headers, body: response.body)
        try flush()
    }

    /// Announces a new SETTINGS_MAX_CONCURRENT_STREAMS.
    func announce(maxConcurrentStreams: Int) throws {
        guard phase == .open else { return }
        try session.submitSettings(maxConcurrentStreams: maxConcurrentStreams)
        try flush()
    }

    /// Closes the TCP connection at once, without GOAWAY: every unanswered stream is lost.
    func drop() {
        phase = .closed
    }

    /// Writes queued frames until done or the socket is full.
    func flush() throws {
        guard phase == .open else { return }
        writeWaitsForRead = false
        try session.send(into: &output)
        while hasPendingOutput {
            switch try tls.write(output[outputSent...]) {
            case .transferred(let count):
                outputSent += count
            case .wantWrite:
                return
            case .wantRead:
                writeWaitsForRead = true
                return
            case .closed:
                phase = .closed
                return
            }
        }
        output.removeAll(keepingCapacity: true)
        outputSent = 0
    }

    private func handle(_ events: [HTTP2ServerSession.Event], _ environment: inout Environment) throws {
        for event in events where phase == .open {
            switch event {
            case .opened(let streamId):
                try opened(streamId, &environment)
            case .request(let streamId, let request):
                guard openStreams.contains(streamId) else { continue }
                try answer(request, streamId: streamId, &environment)
            case .closed(let streamId):
                openStreams.remove(streamId)
            }
        }
    }

    private func opened(_ streamId: Int32, _ environment: inout Environment) throws {
        if let last = goAwayLastStreamId, streamId > last {
            // Arrived in the same read as the GOAWAY decision: refuse it so the client retries.
            try session.reset(streamId: streamId, .refused)
            return
        }
        streamsOpened += 1
        openStreams.insert(streamId)
        peakOpenStreams = max(peakOpenStreams, openStreams.count)
        if let dropAfter = environment.policy.dropAfterStreams, streamsOpened >= dropAfter {
            try flush()
            drop()
            environment.control.count { $0.connectionsDropped += 1 }
        } else if let goAwayAfter = environment.policy.goAwayAfterStreams, streamsOpened >= goAwayAfter, goAwayLastStreamId == nil {
            goAwayLastStreamId = streamId
            try session.submitGoAway(lastStreamId: streamId)
            environment.control.count { $0.goAwaysSent += 1 }
        }
    }

    private func answer(_ request: FakeHTTP2Request, streamId: Int32, _ environment: inout Environment) throws {
        // Asked of the shared control, not the loop's policy snapshot: a request read in the same
        // pass as an earlier one must still see a policy set between them.
        if environment.control.takeResetTurn() {
            // Recorded before the RST_STREAM goes out, so a client that sees the reset finds the record.
            environment.responder.recordReset(of: request)
            try session.reset(streamId: streamId, .internalError)
            return
        }
        let reply = environment.responder.respond(to: request)
        guard reply.delayMilliseconds <= 0 else {
            environment.delayed.add(DelayedResponseQueue.Entry(
                due: EarliestDeadlineTimer.now() + UInt64(reply.delayMilliseconds) * 1_000_000,
                connectionId: id, streamId: streamId, response: reply.response))
            return
        }
        let response = reply.response
        try session.submitResponse(streamId: streamId, status: response.status, headers: response.headers, body: response.body)
    }
}
