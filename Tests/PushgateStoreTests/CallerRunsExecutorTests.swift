import Foundation
import Synchronization
import PushgateStore
import Testing

/// An actor on its own ``CallerRunsExecutor`` that records where its calls ran.
private actor Recorder {
    private let executor = CallerRunsExecutor(label: "test.recorder")
    private var count = 0
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Calls running at once right now, across threads (more than one only if exclusion broke).
    nonisolated let inside = Atomic<Int>(0)
    nonisolated let overlaps = Atomic<Int>(0)

    /// Increments without atomics: only the executor's exclusion keeps the count exact.
    func increment() {
        if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
        let seen = count
        let until = ContinuousClock.now + .microseconds(20)  // a window a racing call would hit
        while ContinuousClock.now < until {}
        count = seen + 1
        inside.subtract(1, ordering: .sequentiallyConsistent)
    }

    var total: Int { count }

    /// The thread this call ran on, then `next`'s calls (each one actor deeper).
    func threads(through next: [Recorder]) async -> [pthread_t] {
        guard let first = next.first else { return [pthread_self()] }
        return [pthread_self()] + (await first.threads(through: Array(next.dropFirst())))
    }
}

/// Runs `work` in a task that starts on a new thread, and returns that thread with the result.
/// The thread lives until `work` is done, so no thread `work` meets can reuse its id.
private func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> (pthread_t, T) {
    await withCheckedContinuation { continuation in
        Thread {
            let caller = pthread_self()
            let done = DispatchSemaphore(value: 0)
            Task.immediate {
                let result = await work()
                continuation.resume(returning: (caller, result))
                done.signal()
            }
            done.wait()
        }.start()
    }
}

@Suite struct CallerRunsExecutorTests {
    @Test func callsFromManyTasksAtOnceRunOneAtATime() async {
        let recorder = Recorder()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2_000 { group.addTask { await recorder.increment() } }
        }
        #expect(await recorder.total == 2_000)
        #expect(recorder.overlaps.load(ordering: .relaxed) == 0)
    }

    @Test func anIdleExecutorRunsTheCallOnTheCallersThreadAndDeepNestingMovesToItsQueue() async {
        let chain = (0..<12).map { _ in Recorder() }
        let (caller, threads) = await onOwnThread { await chain[0].threads(through: Array(chain.dropFirst())) }
        let onCaller = threads.map { pthread_equal($0, caller) != 0 }
        // Eight nested runs stay on the calling thread; the ninth actor goes to its queue, and
        // the rest nest on that queue's thread.
        #expect(onCaller == Array(repeating: true, count: 8) + Array(repeating: false, count: 4))
    }
}
