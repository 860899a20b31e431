import Synchronization

/// What a fake provider's I/O thread and its callers share about requests, behind one lock:
/// per-token scripts, the records (unless counters only), and the provider's own `Books`
/// (counters, issued tokens). Connections are ``FakeServerControl``'s.
final class FakeProviderState<Script: Sendable, Record: FakeProviderRecord, Books: Sendable>: Sendable {
    private struct Shared {
        var scripts: [String: Script] = [:]
        var records: [Record] = []
        var books: Books
    }

    private let shared: Mutex<Shared>
    private let keepsRecords: Bool
    private let observer: (@Sendable (Record) -> Void)?

    init<Configuration: FakeProviderConfiguration>(books: Books, configuration: Configuration)
    where Configuration.Record == Record {
        shared = Mutex(Shared(books: books))
        keepsRecords = configuration.recording == .full
        observer = configuration.onRequest
    }

    // MARK: Callers

    func setScript(_ script: Script?, for token: String) { shared.withLock { $0.scripts[token] = script } }
    func clearScripts() { shared.withLock { $0.scripts.removeAll() } }
    var records: [Record] { shared.withLock { $0.records } }
    func clearRecords() { shared.withLock { $0.records.removeAll() } }
    /// Reads or changes the books under the lock.
    func withBooks<Result: Sendable>(_ body: (inout Books) -> Result) -> Result { shared.withLock { body(&$0.books) } }

    // MARK: I/O loop

    /// Decides one request under the lock: `decide` sees the scripts, updates the books, and
    /// returns the answer with a maker for its record. The record is made only when it is kept
    /// or observed; the observer sees it after the lock is released.
    func decide(_ decide: (_ scripts: [String: Script], _ books: inout Books) -> (reply: FakeServerReply, record: () -> Record))
        -> FakeServerReply {
        let (reply, record) = shared.withLock { state -> (FakeServerReply, Record?) in
            let (reply, makeRecord) = decide(state.scripts, &state.books)
            guard keepsRecords || observer != nil else { return (reply, nil) }
            let record = makeRecord()
            if keepsRecords { state.records.append(record) }
            return (reply, record)
        }
        if let observer, let record { observer(record) }
        return reply
    }
}
