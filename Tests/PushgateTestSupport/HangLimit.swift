internal import CLinux
import Foundation
import Synchronization
import Testing

extension Trait where Self == HangLimitTrait {
    /// Each test may run for `limit` (times ``SanitizedRun/timeScale`` under a sanitizer); past
    /// it, every thread's stack of this process and of its children is printed, the test fails
    /// and is cancelled (docs/architecture.md, "Tests").
    public static func hangLimit(_ limit: TimeLimitTrait.Duration) -> Self {
        HangLimitTrait(limit: TimeLimitTrait.timeLimit(limit).timeLimit * SanitizedRun.timeScale)
    }
}

/// Swift Testing's time limit, plus the stacks that say where a hang is: the limit only says
/// that there was one, and a hang that needs a slow machine to show is seldom seen twice.
public struct HangLimitTrait: TestTrait, SuiteTrait, TestScoping {
    let limit: Duration

    public var isRecursive: Bool { true }

    /// Each test on its own, not the suite as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? nil : self }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let alarm = HangAlarm(after: limit, test: test.name)
        defer { alarm.disarm() }
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await function() }
                group.addTask {
                    if await alarm.rang() {
                        Issue.record("Time limit was exceeded: \(limit); every thread's stack is printed above",
                                     sourceLocation: test.sourceLocation)
                    }
                }
                // The first to end decides: the test finished, or the alarm rang and the test is cancelled.
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }
}

/// Rings once, `limit` after it was made, unless disarmed: it prints the stacks from a thread of
/// its own first, so it rings even when every cooperative thread is stuck.
final class HangAlarm: Sendable {
    private enum State { case armed, waiting(CheckedContinuation<Bool, Never>), ended(rang: Bool) }
    private let state = Mutex(State.armed)
    /// Signalled when disarmed; the alarm's thread waits on it for the limit.
    private let disarmed = DispatchSemaphore(value: 0)

    init(after limit: Duration, test: String) {
        let (seconds, attoseconds) = limit.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        Thread { [self] in
            guard disarmed.wait(timeout: deadline) == .timedOut else { return }
            StackDump.printEveryThread(reason: "\(test) still running after \(limit)")
            end(rang: true)
        }.start()
    }

    /// Whether it rang; false once disarmed or when the waiting task is cancelled.
    func rang() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = state.withLock { state -> Bool? in
                    guard case .ended(let rang) = state else {
                        state = .waiting(continuation)
                        return nil
                    }
                    return rang
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            end(rang: false)
        }
    }

    func disarm() {
        disarmed.signal()
        end(rang: false)
    }

    private func end(rang: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            switch state {
            case .ended: return nil
            case .armed:
                state = .ended(rang: rang)
                return nil
            case .waiting(let continuation):
                state = .ended(rang: rang)
                return continuation
            }
        }
        waiter?.resume(returning: rang)
    }
}

/// Every thread's stack of this process and of the processes below it (a relay or host a test
/// started), printed to standard error by gdb.
enum StackDump {
    static func printEveryThread(reason: String) {
        // Under Yama's ptrace scope 1 only an ancestor may attach; gdb is this process's child.
        pg_allow_any_tracer()
        let stderr = FileHandle.standardError
        for pid in [getpid()] + descendants(of: getpid()) {
            let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?
                .replacingOccurrences(of: "\0", with: " ") ?? "?"
            stderr.write(Data("hang: \(reason): threads of \(command)(pid \(pid))\n".utf8))
            let gdb = Process()
            gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
            gdb.arguments = ["-batch", "-p", "\(pid)", "-ex", "thread apply all bt"]
            gdb.standardInput = FileHandle.nullDevice
            gdb.standardOutput = stderr
            gdb.standardError = stderr
            do {
                try gdb.run()
                gdb.waitUntilExit()
            } catch {
                stderr.write(Data("hang: gdb did not start: \(error)\n".utf8))
            }
        }
    }

    /// Every process below `pid`, depth first (from each thread's `children` list).
    static func descendants(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let children = tasks.flatMap { task -> [pid_t] in
            let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return list.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        return children.flatMap { [$0] + descendants(of: $0) }
    }
}
