import Foundation

/// Runs blocking work (child-process pipes, raw sockets) on its own thread, so it never holds
/// one of the few cooperative-pool threads the servers under test need.
public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
