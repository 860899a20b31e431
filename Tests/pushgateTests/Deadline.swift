import Synchronization

/// An event a test waited for did not come in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Int
    var description: String { "still waiting after \(seconds) s" }
}

/// Returns what `operation` returns as soon as it does, or throws ``DeadlineExceeded`` after
/// `seconds` (and cancels it). Unlike a task group this does not then wait for an operation
/// that ignores cancellation (a client pool's statistics waiter does), so a test whose event
/// never comes fails in time instead of hanging.
func withDeadline<T: Sendable>(seconds: Int = 10, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let first = FirstOutcome(continuation)
        let work = Task {
            do { first.resume(with: .success(try await operation())) } catch { first.resume(with: .failure(error)) }
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            work.cancel()
            first.resume(with: .failure(DeadlineExceeded(seconds: seconds)))
        }
    }
}

/// Resumes a continuation with the first outcome it is given and ignores the later ones.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
