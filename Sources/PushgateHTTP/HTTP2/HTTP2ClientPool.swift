import Foundation
import PushgateCore
import Synchronization

/// An HTTP/2 client over TLS: long-lived connections per origin, many concurrent requests per
/// connection, one I/O thread for the whole pool. Callers just `await send(_:)`.
///
/// - Important: ALPN `h2` only; honours SETTINGS_MAX_CONCURRENT_STREAMS and GOAWAY, PINGs idle
///   connections, backs off between failed connections (relay-protocol.md §7).
public final class HTTP2ClientPool: Sendable {
    private let inbox: HTTP2Inbox
    private let clock: any WallClock
    private let defaultTimeout: Int64
    private let nextRequestID = Atomic<UInt64>(1)
    private let status = HTTP2PoolStatus()

    /// Starts the pool's I/O thread. Throws when the TLS context cannot be built (unreadable extra CA file).
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration(), clock: any WallClock = SystemClock(),
                logger: Logger) throws {
        let tlsContext = try TLSContext.client(extraCAFile: configuration.extraCAFile, alpn: ["h2"])
        let callbacks = try HTTP2ConnectionCallbacks.make()
        let inbox = try HTTP2Inbox()
        self.inbox = inbox
        self.clock = clock
        self.defaultTimeout = configuration.requestTimeoutMilliseconds
        let status = self.status
        let thread = Thread {
            HTTP2EventLoop(inbox: inbox, configuration: configuration, clock: clock, logger: logger,
                           tlsContext: tlsContext, callbacks: callbacks, status: status).run()
        }
        thread.name = "pushgate-h2"
        thread.start()
    }

    deinit {
        inbox.post(.shutdown(nil))
    }

    /// Sends `request` and waits for the complete response (body capped at `maxResponseBodyBytes`).
    /// Throws ``HTTP2ClientError``: `timeout` after the request's deadline, `queueFull`,
    /// `connectFailed` (with the TLS reason), `connectionLost`, `refused`, `streamReset`, `cancelled`, `shutdown`.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let headers = try HeaderBlock(request: request)
        if Task.isCancelled { throw HTTP2ClientError(.cancelled, detail: "the calling task was cancelled") }
        let id = nextRequestID.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = clock.nowMilliseconds + (request.timeoutMilliseconds ?? defaultTimeout)
        let inbox = self.inbox
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let submission = RequestSubmission(id: id, origin: request.origin, headers: headers, body: request.body,
                                                   deadline: deadline, continuation: continuation)
                if !inbox.post(.send(submission)) {
                    continuation.resume(throwing: HTTP2ClientError(.shutdown, detail: "the HTTP/2 client is shutting down"))
                }
            }
        } onCancel: {
            inbox.post(.cancel(id))
        }
    }

    /// Refuses new requests, lets accepted ones finish (each within its deadline), closes every
    /// connection with GOAWAY and stops the I/O thread.
    public func shutdown() async {
        let inbox = self.inbox
        await withCheckedContinuation { continuation in
            if !inbox.post(.shutdown(continuation)) { continuation.resume() }
        }
    }

    /// Connections, open streams and waiting requests for `origin`, as of the I/O thread's last pass.
    public func statistics(for origin: HTTP2Origin) -> HTTP2OriginStatistics {
        status.statistics(for: origin)
    }
}
