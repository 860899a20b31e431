import Glibc

/// Names the calling thread so `top -H` and `/proc/PID/task/*/comm` show it. Linux keeps at most
/// 15 characters and drops a longer name silently, and a thread keeps its creator's name unless
/// it sets its own (`Thread.name` set before `start()` is not applied on Linux), so each thread
/// names itself first thing.
package func nameCurrentThread(_ name: String) {
    precondition(name.utf8.count <= 15, "thread name \(name) is longer than Linux's 15 characters")
    _ = setThreadName(pthread_self(), name)
}

// glibc's pthread_setname_np, declared only under _GNU_SOURCE, so not imported by Glibc.
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
