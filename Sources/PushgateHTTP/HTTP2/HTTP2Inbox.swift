import Synchronization

/// The only way into an event loop: callers post commands, the loop takes them all at once.
final class HTTP2Inbox: Sendable {
    enum Command: Sendable {
        case send(RequestSubmission)
        case cancel(UInt64)
        case resolved(HTTP2Origin, Result<[SocketAddress], TLSError>)
        /// Stop after the accepted requests finished; resume the continuation (if any) once closed.
        case shutdown(CheckedContinuation<Void, Never>?)
    }

    private struct State {
        var commands: [Command] = []
        var closed = false
        var finished = false
    }

    private let state = Mutex(State())
    let waker: LoopWaker

    init() throws {
        waker = try LoopWaker()
    }

    /// Queues a command and wakes the loop if it may be asleep. Returns false (and drops the
    /// command) for a `send` after shutdown began, and for anything once the loop has exited.
    @discardableResult
    func post(_ command: Command) -> Bool {
        let wasEmpty: Bool? = state.withLock { state in
            if state.finished { return nil }
            if case .send = command, state.closed { return nil }
            if case .shutdown = command { state.closed = true }
            let wasEmpty = state.commands.isEmpty
            state.commands.append(command)
            return wasEmpty
        }
        guard let wasEmpty else { return false }
        // A non-empty inbox means the loop has a wake-up pending already.
        if wasEmpty { waker.wake() }
        return true
    }

    /// Swaps every queued command (oldest first) into `batch`, which must be empty; its storage
    /// becomes the next inbox, so a steady stream of commands allocates nothing.
    func takeAll(into batch: inout [Command]) {
        state.withLock { state in
            if !state.commands.isEmpty { swap(&state.commands, &batch) }
        }
    }

    /// Called by the loop as it exits: later posts are refused; returns what was still queued.
    func finish() -> [Command] {
        state.withLock { state in
            state.finished = true
            state.closed = true
            defer { state.commands = [] }
            return state.commands
        }
    }
}
