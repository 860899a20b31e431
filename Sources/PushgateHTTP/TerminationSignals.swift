import Foundation

/// SIGTERM and SIGINT as something to await, instead of the default "exit at once", so a
/// server can stop accepting and finish in-flight work first.
// @unchecked: both stored properties are immutable after init, and Dispatch sources and
// AsyncStream are safe to use from any thread.
public final class TerminationSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let names: AsyncStream<String>

    /// Starts catching SIGTERM and SIGINT (they no longer end the process by themselves).
    public init() {
        let (names, continuation) = AsyncStream<String>.makeStream()
        self.names = names
        sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            return source
        }
    }

    /// The name of the next termination signal.
    public func next() async -> String {
        for await name in names { return name }
        return "end"
    }
}
