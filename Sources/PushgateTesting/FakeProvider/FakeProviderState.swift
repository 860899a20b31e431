import Synchronization

/// What a fake provider's I/O thread and its callers share about requests, behind one lock:
/// per-token script sequences, the records (unless counters only), and the provider's own
/// `Books` (counters, issued tokens). Connections are ``FakeServerControl``'s.
final class FakeProviderState<Script: Sendable, Record: FakeProviderRecord, Books: Sendable>: Sendable {
    private struct Shared {
        var scripts: [String: ScriptSequence<Script>] = [:]
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

    /// Scripts `token`'s next valid requests with `steps` (restarting at the first); none removes its script.
    func setScript(_ steps: [Script], for token: String) {
        shared.withLock { $0.scripts[token] = steps.isEmpty ? nil : ScriptSequence(steps) }
    }

    func clearScripts() { shared.withLock { $0.scripts.removeAll() } }
    var records: [Record] { shared.withLock { $0.records } }
    func clearRecords() { shared.withLock { $0.records.removeAll() } }
    /// Reads or changes the books under the lock.
    func withBooks<Result: Sendable>(_ body: (inout Books) -> Result) -> Result { shared.withLock { body(&$0.books) } }

    // MARK: I/O loop

    /// Decides one request under the lock: `decide` gets the next step of `scriptToken`'s
    /// sequence (nil when the request is not one scripts apply to, or the token has none),
    /// updates the books, and returns the answer with a maker for its record.
    func decide(scriptToken: String?, _ decide: (_ script: Script?, _ books: inout Books) -> (reply: FakeServerReply, record: () -> Record))
        -> FakeServerReply {
        keepingRecord { state in
            let script = scriptToken.flatMap { state.scripts[$0]?.next() }
            return decide(script, &state.books)
        }
    }

    /// Counts (through `count`) and records a request the server resets instead of answering.
    /// It takes no step of its token's script: it got no answer.
    func recordReset(count: (inout Books) -> Void, record: @escaping () -> Record) {
        keepingRecord { state in
            count(&state.books)
            return ((), record)
        }
    }

    /// Runs `body` under the lock, then keeps and observes the record it returns a maker for.
    /// The record is made only when it is kept or observed; the observer sees it after the
    /// lock is released.
    private func keepingRecord<Result: Sendable>(_ body: (inout Shared) -> (Result, () -> Record)) -> Result {
        let (result, record) = shared.withLock { state -> (Result, Record?) in
            let (result, makeRecord) = body(&state)
            guard keepsRecords || observer != nil else { return (result, nil) }
            let record = makeRecord()
            if keepsRecords { state.records.append(record) }
            return (result, record)
        }
        if let observer, let record { observer(record) }
        return result
    }
}
