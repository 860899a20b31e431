import PushgateTesting

/// An event a test waited for did not come in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Int
    var description: String { "still waiting after \(seconds) s" }
}

/// Returns what `operation` returns as soon as it does, or throws ``DeadlineExceeded`` after
/// `seconds`. Unlike a task group's, this bound does not wait for an operation that ignores
/// cancellation (a client pool's statistics waiter does), so a test whose event never comes
/// fails in time instead of hanging; such an operation is left behind.
func withDeadline<T: Sendable>(seconds: Int = 10, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let first = FirstOutcome(continuation)
        let timer = Task {
            try await Task.sleep(for: .seconds(seconds))
            first.resume(with: .failure(DeadlineExceeded(seconds: seconds)))
        }
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            timer.cancel()
            first.resume(with: result)
        }
    }
}
