@testable import PushgateHTTP

/// The HTTP/2 client fed a hostile server in-process: an ``HTTP2ClientSession`` (nghttp2 and
/// the callbacks that turn frames into responses) with three requests open, one of them bigger
/// than the initial flow-control window, receives the input as the server's bytes, and its own
/// output is taken between pieces as its connection would. Every request must end at most once,
/// only a request that was opened may end, and an answer keeps to the body cap.
///
/// The first input byte steers the client: its low 4 bits set the size of the pieces the bytes
/// arrive in (1 to 32 768), and its high bits, after the first piece, reset the second request,
/// send a PING, open a fourth request or end the session (GOAWAY), so frames also meet a client
/// that is doing something itself. The server's first frame must be a SETTINGS frame, as
/// the seeds' is.
enum HTTP2ClientTarget {
    static let callbacks = try! HTTP2ClientSessionCallbacks.make()
    static let origin = HTTP2Origin(host: "api.push.apple.com")
    static let maxBodyBytes = 1_024
    static let requests: [(headers: HeaderBlock, body: [UInt8])] = [
        (try! HeaderBlock(request: HTTP2Request(origin: origin, method: "GET", path: "/health")), []),
        (try! HeaderBlock(request: HTTP2Request(origin: origin, path: "/3/device/ab", headers: [HTTP2Header("apns-topic", "app")])),
         Array(repeating: UInt8(ascii: "x"), count: 100)),
        // Over the 65 535-byte initial window: the client waits for WINDOW_UPDATE frames.
        (try! HeaderBlock(request: HTTP2Request(origin: origin, path: "/upload")), Array(repeating: 0x42, count: 70_000)),
    ]

    static let target = FuzzTarget("http2-client") { input in
        guard let control = input.first else { return }
        let session = try! HTTP2ClientSession(callbacks: callbacks, origin: origin, maxResponseBodyBytes: maxBodyBytes)
        var open = Set<UInt64>()
        for (index, request) in requests.enumerated() {
            guard case .submitted = session.submit(UInt64(index + 1), headers: request.headers, body: request.body) else {
                preconditionFailure("a fresh session refuses a request")
            }
            open.insert(UInt64(index + 1))
        }
        var output: [UInt8] = []
        func settle() {
            for event in session.takeEvents() {
                guard case .streamClosed(let id, let outcome) = event else { continue }
                precondition(open.remove(id) != nil, "request \(id) ended twice or was never opened")
                if case .answered(let response) = outcome {
                    precondition((200...999).contains(response.status), "an answer with status \(response.status)")
                    precondition(response.body.count <= maxBodyBytes, "an answer over the body cap")
                    precondition(!response.bodyTruncated || response.body.count == maxBodyBytes, "a truncated body under the cap")
                }
            }
        }
        func flush() -> Bool {
            output.removeAll(keepingCapacity: true)
            defer { settle() }
            return (try? session.appendOutput(to: &output, limit: .max)) != nil
        }
        guard flush() else { return }
        let pieceSize = 1 << Int(control & 0x0F)
        var offset = 1
        var steered = false
        while offset < input.count {
            let end = min(offset + pieceSize, input.count)
            let received: Bool
            do {
                try session.receive(UnsafeBufferPointer(rebasing: input[offset..<end]))
                received = true
            } catch {
                received = false
            }
            settle()
            offset = end
            guard received, flush(), !session.isFinished else { break }
            if !steered {
                steered = true
                if control & 0x10 != 0 { session.reset(2) }
                if control & 0x20 != 0 { session.sendPing() }
                if control & 0x40 != 0, case .submitted = session.submit(4, headers: requests[1].headers, body: requests[1].body) {
                    open.insert(4)
                }
                if control & 0x80 != 0 { session.terminate() }
                guard flush() else { break }
            }
        }
        precondition(session.sentRequestIDs.isSubset(of: open), "a request that ended is still counted as sent")
    }
}
