import Foundation
import Synchronization

/// The process's one DNS thread (`pushgate-dns`): blocking `getaddrinfo` lookups for origins
/// named by DNS, one at a time from a queue, so an event loop never blocks on DNS and a
/// connection attempt never costs a thread. Lookups are rare — a pool resolves when it opens a
/// connection, and connections are long-lived — so one thread is enough; a slow name server
/// delays the lookups queued behind it, each still bounded by its connection's connect timeout
/// (docs/concurrency.md, "The HTTP/2 client inside").
final class HostResolver: Sendable {
    typealias Completion = @Sendable (Result<[SocketAddress], TLSError>) -> Void

    private struct Lookup {
        let host: String
        let port: UInt16
        let completion: Completion
    }

    /// Started on the first lookup.
    static let shared = HostResolver()

    private let lookups = Mutex<[Lookup]>([])
    /// Signalled once per queued lookup.
    private let queued = DispatchSemaphore(value: 0)

    private init() {
        Thread { [self] in serve() }.start()
    }

    /// Resolves `host` on the DNS thread and calls `completion` there.
    func resolve(host: String, port: UInt16, completion: @escaping Completion) {
        lookups.withLock { $0.append(Lookup(host: host, port: port, completion: completion)) }
        queued.signal()
    }

    private func serve() {
        nameCurrentThread("pushgate-dns")
        while true {
            queued.wait()
            let lookup = lookups.withLock { $0.removeFirst() }
            lookup.completion(Result { () throws(TLSError) -> [SocketAddress] in
                do { return try SocketAddress.resolve(host: lookup.host, port: lookup.port) } catch let error as TLSError { throw error } catch {
                    throw TLSError(.connectFailed, operation: "resolve \(lookup.host)", detail: "\(error)")
                }
            })
        }
    }
}
