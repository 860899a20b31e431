import Dispatch
import Synchronization

/// Runs async library calls from the command-line tools' synchronous commands.
package enum AsyncBridge {
    /// Waits on the calling thread for `body`, which runs on the cooperative pool.
    package static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value: Result<T, any Error>
            do { value = .success(try await body()) } catch { value = .failure(error) }
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
