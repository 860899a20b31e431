import PushgateHTTP
import Synchronization
import Testing

/// A latch handlers wait on until the test opens it; it also counts the handlers waiting.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []
    private(set) var waiting = 0

    /// Suspends until ``open()``.
    func wait() async {
        waiting += 1
        arrivals.forEach { $0.resume() }
        arrivals.removeAll()
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Returns once `count` callers have reached ``wait()``.
    func waitForArrivals(_ count: Int) async {
        while waiting < count { await withCheckedContinuation { arrivals.append($0) } }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }
}

/// Bytes of `count` copies of `byte`.
func filler(_ count: Int, _ byte: UInt8 = UInt8(ascii: "x")) -> [UInt8] { [UInt8](repeating: byte, count: count) }

/// A chunked request body: `body` in chunks of `chunkSize`, then the last chunk.
func chunked(_ body: [UInt8], chunkSize: Int) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    while start < body.count {
        let end = min(start + chunkSize, body.count)
        out += Array((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + Array("\r\n".utf8)
        start = end
    }
    return out + Array("0\r\n\r\n".utf8)
}

/// A thread-safe list that handlers and hooks append to and tests read.
final class Recorder<Item: Sendable>: Sendable {
    private let storage = Mutex<[Item]>([])
    func append(_ item: Item) { storage.withLock { $0.append(item) } }
    var items: [Item] { storage.withLock { $0 } }
}

/// How a test server runs: on an ``EpollEventLoop`` of its own (as the relay runs), or on one
/// shared with other servers and clients (as the host runs its API).
enum ServerMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case ownLoop
    case sharedLoop

    /// One loop for every shared-loop server of the test process.
    private static let loop = try! EpollEventLoop()

    /// `configuration` in this mode.
    func applied(to configuration: HTTPServerConfiguration = HTTPServerConfiguration()) -> HTTPServerConfiguration {
        var configuration = configuration
        if self == .sharedLoop { configuration.eventLoop = Self.loop }
        return configuration
    }

    var testDescription: String { rawValue }
}
