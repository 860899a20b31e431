import Foundation
import Synchronization

/// Runs blocking `work` (child processes, pipes, `waitpid`, libpq calls) on a new thread and
/// waits for it without holding one of the few cooperative-pool threads that in-process
/// servers and clients need.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// ``onOwnThread(_:)`` with a time limit: when `work` has not finished within `seconds`, throws
/// a ``ChildProcessError`` naming `what`, so a stuck child fails its test with a clear message
/// instead of hanging it. The thread goes on until `work` returns; the caller ends it by ending
/// what it waits on (killing the child).
public func onOwnThread<T: Sendable>(within seconds: Double, _ what: String,
                                     _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let first = FirstOutcome(continuation)
        Thread { first.resume(with: Result { try work() }) }.start()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            first.resume(with: .failure(ChildProcessError(command: what, reason: "no answer within \(seconds) s")))
        }
    }
}

/// Resumes a continuation with the first outcome it is given and ignores the later ones: the
/// operation and its time limit race, whichever ends first answers.
public final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    public init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    public func resume(with result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
