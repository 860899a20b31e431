import Dispatch
import Foundation
import Synchronization

/// Signals handed to one waiting thread in arrival order. From the moment it is made, the
/// given signals no longer act by default: dispatch sources catch them, so none is lost
/// before the thread starts waiting.
struct SignalInbox {
    /// What the sources' handlers and the waiting thread share.
    private final class Mailbox: Sendable {
        let pending = Mutex<[Int32]>([])
        let arrived = DispatchSemaphore(value: 0)
    }

    private let mailbox = Mailbox()
    private let sources: [any DispatchSourceSignal]

    init(catching numbers: [Int32]) {
        let mailbox = mailbox
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                mailbox.pending.withLock { $0.append(number) }
                mailbox.arrived.signal()
            }
            source.resume()
            return source
        }
    }

    /// Blocks until the next signal and returns its number.
    func next() -> Int32 {
        mailbox.arrived.wait()
        return mailbox.pending.withLock { $0.removeFirst() }
    }

    /// Stops catching (the signals stay ignored).
    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
