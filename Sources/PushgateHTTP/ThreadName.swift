import Foundation

/// Names the calling thread so `top -H` and `/proc/PID/task/*/comm` show it. Linux keeps at most
/// 15 characters and drops a longer name silently, and a `Thread` whose `name` is set before
/// `start()` keeps its creator's name, so each thread names itself first thing.
package func nameCurrentThread(_ name: String) {
    precondition(name.utf8.count <= 15, "thread name \(name) is longer than Linux's 15 characters")
    Thread.current.name = name  // pthread_setname_np on the current thread
}
